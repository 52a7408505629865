// Which project files the sandbox shows read-only (src/kernel/sandbox/protect.ts); the mounts themselves
// are tested with real bubblewrap in test/e2e/kernels/sandbox-trust.test.ts.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { protectedPaths, submodulePaths } from "../../src/kernel/sandbox/protect.js";
import { tempDir } from "./helpers.js";

const NAMES = [".git", ".relm", ".mcp.json"];

describe("what the sandbox shows read-only in the project", () => {
  it("what exists, and names what does not", async () => {
    const project = realpathSync(await tempDir("relm-protect-"));
    mkdirSync(path.join(project, ".git"));
    writeFileSync(path.join(project, ".mcp.json"), "{}");
    expect(protectedPaths(project, NAMES)).toEqual({
      readOnly: [path.join(project, ".git"), path.join(project, ".mcp.json")],
      pinned: [],
      unprotected: [".relm"],
    });
  });

  it("a symlink's target when it is in the project, and the link itself as unprotected", async () => {
    const project = realpathSync(await tempDir("relm-protect-"));
    mkdirSync(path.join(project, "real-relm"));
    symlinkSync("real-relm", path.join(project, ".relm"));
    symlinkSync("/etc", path.join(project, ".git")); // outside: read-only in the sandbox anyway
    const got = protectedPaths(project, NAMES);
    expect(got.readOnly).toEqual([path.join(project, "real-relm")]);
    expect(got.unprotected).toEqual([".git", ".relm", ".mcp.json"]);
  });

  it("submodules: a checked-out one's .git with its folders pinned, an empty one whole", async () => {
    const project = realpathSync(await tempDir("relm-protect-"));
    mkdirSync(path.join(project, ".git"));
    mkdirSync(path.join(project, "lib", "a"), { recursive: true });
    writeFileSync(path.join(project, "lib", "a", ".git"), "gitdir: ../../.git/modules/a\n");
    mkdirSync(path.join(project, "lib", "b"));
    writeFileSync(
      path.join(project, ".gitmodules"),
      [
        '[submodule "a"]',
        "\tpath = lib/a",
        '[submodule "b"]',
        '\tpath = "lib/b"',
        '[submodule "gone"]',
        "\tpath = missing",
        '[submodule "evil"]',
        "\tpath = ../outside",
      ].join("\n"),
    );
    expect(protectedPaths(project, NAMES)).toEqual({
      readOnly: [
        path.join(project, ".git"),
        path.join(project, "lib", "a", ".git"),
        path.join(project, "lib", "b"),
      ],
      pinned: [path.join(project, "lib", "a"), path.join(project, "lib")],
      unprotected: [".relm", ".mcp.json"],
    });
  });

  it("reads .gitmodules paths, refusing any that leave the repository", async () => {
    const dir = await tempDir("relm-protect-");
    const file = path.join(dir, ".gitmodules");
    writeFileSync(file, '[submodule "x"]\n  path = a/b \n  path=/abs\n  path = ../up\n  path = .\n');
    expect(submodulePaths(file)).toEqual(["a/b"]);
    expect(submodulePaths(path.join(dir, "none"))).toEqual([]);
  });
});
