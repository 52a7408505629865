// What a granted request('write') does on the host (src/agent/approvals/act.ts writeOutside): it writes
// the real path that was approved. Parts of that path may be in the project, which the kernel can change
// while the request waits, so what the kernel planted since (a link at the name, a folder swapped for a
// link) must not lead the write anywhere else.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeOutside } from "../../src/agent/approvals/act.js";
import { realTarget } from "../../src/agent/approvals/policy.js";

const dir = mkdtempSync(join(tmpdir(), "relm-approval-write-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a granted request('write')", () => {
  it("replaces a link put at the approved name since, and leaves what it points to alone", () => {
    const project = join(dir, "p1");
    mkdirSync(project);
    const precious = join(dir, "precious.txt");
    writeFileSync(precious, "keep");
    const approved = realTarget(join(project, "report.txt"));
    symlinkSync(precious, approved); // planted after the approval
    writeOutside(approved, "report");
    expect(readFileSync(precious, "utf8")).toBe("keep");
    expect(readFileSync(approved, "utf8")).toBe("report");
  });

  it("refuses when a folder on the way was swapped for a link since, writing nothing where it leads", () => {
    const project = join(dir, "p2");
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(join(project, "sub"), { recursive: true });
    mkdirSync(elsewhere);
    const approved = realTarget(join(project, "sub", "notes.txt"));
    rmSync(join(project, "sub"), { recursive: true });
    symlinkSync(elsewhere, join(project, "sub"));
    expect(() => writeOutside(approved, "notes")).toThrow(/sub changed since the write was approved/);
    expect(() => statSync(join(elsewhere, "notes.txt"))).toThrow();
  });

  it("an existing file gets the content and keeps its permissions", () => {
    const file = join(dir, "existing.sh");
    writeFileSync(file, "old");
    chmodSync(file, 0o750);
    writeOutside(file, "new");
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o750);
  });

  it("is asked about where a dangling link leads, not as the link's own name", () => {
    const project = join(dir, "p3");
    mkdirSync(project);
    const target = join(dir, "not-yet", "there.txt");
    symlinkSync(target, join(project, "out.txt"));
    expect(realTarget(join(project, "out.txt"))).toBe(target);
    // A link to a link, relative, still ends where the last one leads.
    symlinkSync("out.txt", join(project, "again.txt"));
    expect(realTarget(join(project, "again.txt"))).toBe(target);
  });
});
