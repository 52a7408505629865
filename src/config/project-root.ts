import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The project a working directory belongs to: the nearest directory (up to the repository root) that
 * has a `.relm/` folder, else the repository root, else the working directory itself. Its `.relm/` holds
 * the project's sub-agent specs, harness and MCP servers (`.relm/mcp.json`, `.mcp.json`). Always an
 * absolute path: a relative `cwd` is resolved first, so its parents are looked at too.
 */
export function projectRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".relm")) || existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}
