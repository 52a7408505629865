// `prepare` (npm ci, npm install, npm link) and `npm test`: builds dist/ only when a source is newer than
// the last build. `npm ci && npm link` runs prepare twice, and CI's `npm ci && npm test` built twice too;
// the second found dist/ current and built it again (~20 s of CPU, 2 minutes on a loaded small machine).
// `npm run build` always builds.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "relm.cjs");
const inputs = [
  "src",
  "scripts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
];

/** The newest modification time under `path` (a file or a folder). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry === "__pycache__") continue;
    max = Math.max(max, newest(join(path, entry)));
  }
  return max;
}

const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const sourcesAt = Math.max(...inputs.map((p) => newest(join(root, p))));
if (builtAt > 0 && builtAt >= sourcesAt) {
  console.log("relm: dist/ is up to date with the sources (npm run build rebuilds it)");
} else {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["run", "build"], { cwd: root, stdio: "inherit" });
  process.exit(result.status ?? 1);
}
