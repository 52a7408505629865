import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSpecs, loadSpec, SpecError } from "../../src/agent/children/specs.js";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "relm-specs-"));
  mkdirSync(join(project, ".git"));
  mkdirSync(join(project, ".relm", "agents"), { recursive: true });
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

function spec(name: string, text: string): void {
  writeFileSync(join(project, ".relm", "agents", name), text);
}

describe("sub-agent specs", () => {
  it("reads every field, from a subdirectory of the project too", () => {
    spec(
      "reviewer.yaml",
      "description: Reviews diffs\nmodel: small-model\ninstructions: |\n  Be strict.\nmax_turns: 4\nmax_tokens: 20000\nmax_time: 5m\n",
    );
    mkdirSync(join(project, "src", "deep"), { recursive: true });
    const s = loadSpec(join(project, "src", "deep"), "reviewer");
    expect(s).toMatchObject({
      name: "reviewer",
      description: "Reviews diffs",
      model: "small-model",
      instructions: "Be strict.",
      limits: { maxTurns: 4, maxTokens: 20000, maxTimeMs: 300_000 },
    });
  });

  it("takes max_time: 0 as no time limit of its own", () => {
    spec("free.yaml", "description: x\nmax_time: 0\n");
    expect(loadSpec(project, "free").limits.maxTimeMs).toBeUndefined();
  });

  it("names the file and line of an unknown field", () => {
    spec("bad.yaml", "description: x\n\nflavour: mint\n");
    expect(() => loadSpec(project, "bad")).toThrow(SpecError);
    expect(() => loadSpec(project, "bad")).toThrow(/bad\.yaml:3: unknown field "flavour"/);
  });

  it("names the file and line of invalid YAML", () => {
    spec("broken.yml", "description: ok\nmodel: [unclosed\n");
    expect(() => loadSpec(project, "broken")).toThrow(/broken\.yml:\d+: invalid YAML/);
  });

  it("rejects wrong types and a missing description", () => {
    spec("turns.yaml", "description: x\nmax_turns: many\n");
    expect(() => loadSpec(project, "turns")).toThrow(
      /turns\.yaml:2: max_turns must be a positive whole number/,
    );
    spec("time.yaml", "description: x\nmax_time: soon\n");
    expect(() => loadSpec(project, "time")).toThrow(/time\.yaml:2: invalid max_time/);
    spec("empty.yaml", "model: x\n");
    expect(() => loadSpec(project, "empty")).toThrow(/needs a description/);
  });

  it("lists usable specs in name order and leaves broken ones out", () => {
    spec("b.yaml", "description: second\n");
    spec("a.yaml", "description: first\n");
    spec("c.yaml", "nonsense: [\n");
    expect(listSpecs(project).map((s) => [s.name, s.description])).toEqual([
      ["a", "first"],
      ["b", "second"],
    ]);
  });

  it("says which specs exist when the name is unknown", () => {
    spec("a.yaml", "description: first\n");
    expect(() => loadSpec(project, "zzz")).toThrow(/no sub-agent spec "zzz".*known: a/);
    expect(() => loadSpec(project, "../etc/passwd")).toThrow(/not a valid spec name/);
  });
});
