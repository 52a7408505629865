// `relm harness import FILE`: an export file is outside the log, written by relm but editable by anyone, so
// each entry in it is checked as the log's own entries are read. An entry the log would leave out as
// damaged is refused, naming the file, the entry and the field, and nothing of it is written.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importCommand } from "../../../src/learning/commands/harness-actions.js";
import { HarnessStore, scopeLocation, takeLogWarnings } from "../../../src/learning/store/index.js";
import { capturedIo, cleanEnv, runRelm, tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("relm harness import", () => {
  it("refuses an exported entry the revision log could not read back, and writes the good ones whole", async () => {
    const home = tempDir("relm-import-home-");
    const cwd = tempDir("relm-import-cwd-");
    cleanups.push(home.cleanup, cwd.cleanup);
    const file = join(cwd.path, "export.json");
    const created = "2026-12-01T10:00:00.000Z";
    writeFileSync(
      file,
      JSON.stringify({
        "relm-harness-export": 1,
        scope: "user",
        entries: [
          { id: 42, kind: "memory", title: "", content: "Run the linter first", source: "user", created },
          { id: "mem-aaaaaa", kind: "memory", content: "Prefer small commits", created: 7 },
          { id: "mem-bbbbbb", kind: "memory", content: "Keep the changelog current", created },
        ],
      }),
    );
    const { io, out, err } = capturedIo({ RELM_HOME: home.path }, cwd.path);
    const code = await importCommand(file, {}, io);

    const project = new HarnessStore(scopeLocation("project", { cwd: cwd.path, home: home.path }));
    // What was written reads back whole: no damaged line, and the good entry is there with its id.
    expect(project.problems()).toEqual([]);
    expect(takeLogWarnings()).toEqual([]);
    expect(project.entries().map((e) => [e.id, e.content, e.created])).toEqual([
      ["mem-bbbbbb", "Keep the changelog current", created],
    ]);
    expect(out()).toContain("imported 1 entry into the project scope");
    expect(err()).toContain(`not imported: ${file}, entry 1: id: expected string`);
    expect(err()).toContain(`not imported: ${file}, entry 2: created: expected string`);
    // Something was imported, so the command succeeds; what was not is on stderr.
    expect(code).toBe(0);
  });
});

describe("relm harness import -", () => {
  it("names standard input, not '-', in what it says of what it read", async () => {
    const home = tempDir("relm-import-home-");
    const cwd = tempDir("relm-import-cwd-");
    cleanups.push(home.cleanup, cwd.cleanup);
    const env = cleanEnv({ RELM_HOME: home.path });
    const created = "2026-12-01T10:00:00.000Z";
    const entry = { id: "mem-cccccc", kind: "memory", content: "Keep the changelog current", created };
    for (const [input, said] of [
      ["nope", /^relm: standard input is not a harness export \(Unexpected token/],
      [
        '{"entries": []}',
        /^relm: standard input is not a harness export: write one with `relm harness export`\n$/,
      ],
      [
        JSON.stringify({
          "relm-harness-export": 1,
          scope: "user",
          entries: [{ ...entry, created: 7 }, entry],
        }),
        /^not imported: standard input, entry 1: created: expected string\n$/,
      ],
    ] as const) {
      const result = await runRelm(["harness", "import", "-"], { env, cwd: cwd.path, input });
      expect(result.stderr).toMatch(said);
      expect(result.stderr).not.toMatch(/(^|: )- /);
    }
  });
});

describe("an export made by a newer relm", () => {
  it("says so and to upgrade relm, rather than that the file is not an export; nothing is written", async () => {
    const home = tempDir("relm-import-home-");
    const cwd = tempDir("relm-import-cwd-");
    cleanups.push(home.cleanup, cwd.cleanup);
    const file = join(cwd.path, "export.json");
    const entry = {
      id: "mem-dddddd",
      kind: "memory",
      content: "Prefer small commits",
      created: "2026-12-01T10:00:00.000Z",
    };
    writeFileSync(file, JSON.stringify({ "relm-harness-export": 2, scope: "user", entries: [entry] }));
    const result = await runRelm(["harness", "import", file], {
      env: cleanEnv({ RELM_HOME: home.path }),
      cwd: cwd.path,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `relm: ${file} was made by a newer relm (harness export format 2; this relm reads format 1): upgrade relm to import it\n`,
    );
    expect(new HarnessStore(scopeLocation("project", { cwd: cwd.path, home: home.path })).entries()).toEqual(
      [],
    );
  });
});
