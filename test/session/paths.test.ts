import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensurePrivateDir, relmHome, sessionDir, sessionsDir } from "../../src/session/index.js";
import { tempDir } from "./helpers.js";

describe("paths", () => {
  it("uses $RELM_HOME or ~/.relm", () => {
    expect(relmHome({ RELM_HOME: "/srv/relm" })).toBe("/srv/relm");
    expect(relmHome({})).toBe(join(homedir(), ".relm"));
    expect(relmHome({ RELM_HOME: "" })).toBe(join(homedir(), ".relm"));
    expect(relmHome({ RELM_HOME: "~/state" })).toBe(join(homedir(), "state"));
  });

  it("places sessions under the home and refuses ids that climb out", () => {
    expect(sessionsDir("/h")).toBe("/h/sessions");
    expect(sessionDir("/h", "abc12345")).toBe("/h/sessions/abc12345");
    expect(() => sessionDir("/h", "../etc")).toThrow();
    expect(() => sessionDir("/h", "..")).toThrow();
  });

  it("creates private dirs and tightens an existing one", () => {
    const root = tempDir();
    const fresh = join(root, "a", "b");
    ensurePrivateDir(fresh);
    expect(statSync(fresh).mode & 0o777).toBe(0o700);

    const loose = join(root, "loose");
    mkdirSync(loose);
    chmodSync(loose, 0o755);
    ensurePrivateDir(loose);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
  });
});
