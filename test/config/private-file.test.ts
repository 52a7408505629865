import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePrivateFile, writePrivateJson } from "../../src/config/private-file.js";

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "relm-private-"));
}

describe("writePrivateFile", () => {
  it("replaces a world-readable file with a 0600 one and leaves no temporary file", () => {
    const dir = scratch();
    const path = join(dir, "config.json");
    writeFileSync(path, "old", { mode: 0o644 });
    writePrivateJson(path, { apiKey: "sk-1" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ apiKey: "sk-1" });
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  it("creates a missing parent 0700", () => {
    const dir = join(scratch(), "home");
    writePrivateFile(join(dir, "auth.json"), "{}\n");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("never writes through a planted temporary-file symlink", () => {
    const dir = scratch();
    const path = join(dir, "trust.json");
    const victim = join(dir, "victim");
    writeFileSync(victim, "untouched");
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    writePrivateFile(path, "new\n");
    expect(readFileSync(victim, "utf8")).toBe("untouched");
    expect(readFileSync(path, "utf8")).toBe("new\n");
  });

  it("removes its temporary file when the final rename fails", () => {
    const dir = scratch();
    const path = join(dir, "config.json");
    mkdirSync(join(path, "inside"), { recursive: true }); // a file cannot be renamed over a directory
    expect(() => writePrivateFile(path, "new")).toThrow();
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });
});
