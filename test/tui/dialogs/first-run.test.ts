// The first run: `relm demo` in a terminal ends by saying what to do next (sign in, then relm in a
// project), and `npm link` after `npm ci` does not build dist/ a second time.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, tempDir } from "../../support/cli.js";
import { usePtys } from "../../support/pty.js";

const startPty = usePtys();
const ROOT = join(import.meta.dirname, "..", "..", "..");

describe("the first run", () => {
  it("relm demo in a terminal ends with what to do next", async () => {
    const home = tempDir("relm-home-");
    try {
      const pty = startPty({ args: ["demo"], env: cleanEnv({ RELM_HOME: home.path }), cols: 120, rows: 50 });
      const exit = await pty.waitForExit(180_000);
      expect(exit.exitCode, pty.dump()).toBe(0);
      const text = pty.allText();
      expect(text).toContain("dry run: nothing was written");
      expect(text).toMatch(/Next:\s*\n\s*relm login\s+choose a provider, key and model/);
      expect(text).toMatch(/cd your-project && relm\s+the full-screen UI there/);
    } finally {
      home.cleanup();
    }
  }, 200_000);

  it("npm's prepare does not build again when dist/ is newer than the sources", () => {
    // The tests run against a fresh build of this tree (the suite builds first), so prepare finds it current.
    const result = spawnSync(process.execPath, [join(ROOT, "scripts", "build-if-stale.mjs")], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("dist/ is up to date with the sources");
  });
});
