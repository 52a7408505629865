import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkIntent,
  type EntryState,
  HarnessStore,
  LIMITS,
  loadHarness,
  renderHarness,
  scopeLocation,
} from "../../../src/learning/store/index.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function entry(i: number, over: Partial<EntryState> = {}): EntryState {
  const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  return {
    id: `mem-${String(i).padStart(6, "0")}`,
    kind: "memory",
    title: "",
    content: `lesson ${i}`,
    source: "user",
    created: t,
    updated: t,
    scope: "project",
    rev: "r1",
    uses: 0,
    ...over,
  };
}

describe("rendering", () => {
  it("prints the same bytes for the same entries in any order, and keeps kinds within their limits", () => {
    const many = Array.from({ length: LIMITS.memory.count + 5 }, (_, i) =>
      entry(i, { uses: i === 0 ? 9 : 0 }),
    );
    const block = renderHarness(many, []);
    expect(renderHarness([...many].reverse(), [])).toBe(block);
    expect(block.match(/^- \[mem-/gm)).toHaveLength(LIMITS.memory.count);
    expect(block).toContain("(5 more not shown");
    // The most used entry is kept even though it is the oldest; kept ones print oldest first.
    expect(block).toContain("[mem-000000] lesson 0");
    expect(block.indexOf("lesson 0")).toBeLessThan(block.indexOf("lesson 34"));
    const long = renderHarness(
      [entry(1, { kind: "prompt", id: "prompt-aaaaaa", content: "x".repeat(5000) })],
      [],
    );
    expect(long.length).toBeLessThan(LIMITS.prompt.chars + 500);
    expect(renderHarness([], [])).toBe("");
  });

  it("checks edits mechanically: base prompt, kind, size, duplicates by normalised text, names", () => {
    const ctx = {
      state: new Map(),
      location: { scope: "project" as const, dir: "" },
      others: [entry(1, { content: "Use pnpm, not npm." })],
      batch: [],
      requireEvidence: true,
      source: "refine" as const,
    };
    const reason = (raw: unknown) => {
      const r = checkIntent(raw, ctx);
      return r.ok ? "ok" : r.reason;
    };
    expect(reason({ op: "update", id: "base", content: "be evil", evidence: [1] })).toMatch(
      /base system prompt is fixed/,
    );
    expect(reason({ kind: "memory", content: "use PNPM not npm", evidence: [1] })).toMatch(
      /duplicates entry mem-000001/,
    );
    expect(reason({ kind: "memory", content: "x".repeat(501), evidence: [1] })).toMatch(/at most 500/);
    expect(reason({ kind: "memory", content: "fine" })).toMatch(/cites no evidence/);
    expect(reason({ kind: "skill", title: "Bad-Name", content: "d", evidence: [1] })).toMatch(
      /Python module name/,
    );
    expect(reason({ kind: "skill", title: "ok_name", content: "d", code: "x=1", evidence: [1] })).toMatch(
      /save_skill/,
    );
    expect(reason({ kind: "memory", content: "fine", evidence: [2] })).toBe("ok");
  });
});

describe("skills", () => {
  it("discovers SKILL.md folders (project, .agents, user), puts packages on the path, and materialises entries", () => {
    const home = tempDir();
    const cwd = tempDir();
    cleanups.push(home.cleanup, cwd.cleanup);
    const ctx = { cwd: cwd.path, home: home.path };
    const folder = (root: string, name: string, description: string, pkg: boolean) => {
      mkdirSync(join(root, name, name.replace(/-/g, "_")), { recursive: true });
      writeFileSync(
        join(root, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`,
      );
      if (pkg) writeFileSync(join(root, name, name.replace(/-/g, "_"), "__init__.py"), "X = 1\n");
    };
    folder(join(cwd.path, ".agents", "skills"), "pdf-tools", "Reads PDFs", true);
    folder(join(home.path, "skills"), "notes", "Only instructions", false);
    folder(join(home.path, "skills"), "pdf-tools", "Shadowed by the project's", true);

    const project = new HarnessStore(scopeLocation("project", ctx));
    const saved = project.commit({
      intents: [
        {
          op: "add",
          kind: "skill",
          title: "stats",
          content: "Column statistics",
          code: "def mean(x):\n    return sum(x) / len(x)\n",
          source: "user",
        },
      ],
      author: "user",
      reason: "save",
    }).revision!;
    const skillDir = join(cwd.path, ".relm", "skills", "stats");
    expect(readFileSync(join(skillDir, "stats", "__init__.py"), "utf8")).toContain("def mean");

    const loaded = loadHarness(ctx);
    expect(loaded.skills.map((s) => [s.name, s.scope, s.module ?? null])).toEqual([
      ["stats", "project", "stats"],
      ["pdf-tools", "project", "pdf_tools"],
      ["notes", "user", null],
    ]);
    expect(loaded.skillPaths).toEqual([skillDir, join(cwd.path, ".agents", "skills", "pdf-tools")]);
    expect(loaded.block).toContain("- stats: Column statistics (import stats)");
    expect(loaded.block).toContain(
      `- notes: Only instructions (instructions in ${join(home.path, "skills", "notes")}/SKILL.md)`,
    );

    project.revert(saved.rev, { author: "user" });
    expect(existsSync(skillDir)).toBe(false);
    expect(existsSync(join(cwd.path, ".agents", "skills", "pdf-tools"))).toBe(true);
  });
});
