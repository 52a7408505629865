// AGENTS.md as the prompt takes it (src/agent/core/prompt.ts findAgentsMd): the project's file, or a
// link to a file beside it (AGENTS.md -> CLAUDE.md, the usual way to share one), but never what a link
// leads to outside its folder, and never a file that is not a regular one.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findAgentsMd } from "../../src/agent/core/prompt.js";

const dir = mkdtempSync(join(tmpdir(), "relm-agents-md-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(name: string): string {
  const p = join(dir, name);
  mkdirSync(join(p, ".git"), { recursive: true });
  return p;
}

describe("findAgentsMd", () => {
  it("reads a link to a file beside it, as the file", () => {
    const p = project("beside");
    writeFileSync(join(p, "CLAUDE.md"), "use tabs");
    symlinkSync("CLAUDE.md", join(p, "AGENTS.md"));
    expect(findAgentsMd(p)?.text).toBe("use tabs");
  });

  it("leaves out a link that leads out of its folder, and a FIFO", () => {
    const secret = join(dir, "config.json");
    writeFileSync(secret, '{"apiKey": "sk-nope"}');
    const p = project("out");
    symlinkSync(secret, join(p, "AGENTS.md"));
    expect(findAgentsMd(p)).toBeUndefined();
    const f = project("fifo");
    execFileSync("mkfifo", [join(f, "AGENTS.md")]);
    expect(findAgentsMd(f)).toBeUndefined();
  });

  it("cuts a long one after reading only its beginning", () => {
    const p = project("long");
    writeFileSync(join(p, "AGENTS.md"), "x".repeat(50_000));
    const found = findAgentsMd(p, 100);
    expect(found?.text).toBe(`${"x".repeat(100)}\n[AGENTS.md truncated at 100 chars]`);
  });
});
