// Which front end a command line gets, without a terminal (the UI itself is driven in a pseudo-terminal
// by the tui tests), and that the one-shot paths never load the UI's part of the bundle.

import { spawn } from "node:child_process";
import { copyFileSync, cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, ROOT, runRelm, tempDir } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

describe("relm without a terminal", () => {
  it('relm "task" runs it once like relm run: the answer on stdout', async () => {
    const rig = await startRig("openai", { script: [{ text: "forty-two" }] });
    const result = await runRelm(["what is six times seven"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("forty-two\n");
    expect(rig.model.requests[0]?.rawBody).toContain("what is six times seven");
    expect(onlyJournal(rig.home).raw).toContain('"title":"what is six times seven"');
  });

  it("--continue and --resume ID carry on a saved session in line mode, with piped lines as turns", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "answer = 6 * 7" },
        { text: "stored" },
        { code: "answer" },
        (ctx) => ({ text: `still ${ctx.lastToolResult?.trim()}` }),
        { text: "third" },
      ],
    });
    const first = await runRelm(["run", "store the answer"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const { dir } = onlyJournal(rig.home);
    const id = dir.split("/").at(-1) as string;

    const continued = await runRelm(["--continue"], {
      env: rig.env,
      cwd: rig.cwd,
      input: "what is it now?\n",
    });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toContain(`continuing session ${id}`);
    // The kernel's variable came back from the session's snapshot: the same session, not a new one.
    expect(continued.stdout).toContain("still 42");

    const resumed = await runRelm(["--resume", id.slice(0, 4), "one more thing"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`continuing session ${id}`);
    expect(resumed.stdout).toContain("third");

    const { lines } = onlyJournal(rig.home);
    const said = lines.filter((l) => l.type === "user").map((l) => JSON.stringify(l));
    expect(said.join("\n")).toContain("what is it now?");
    expect(said.join("\n")).toContain("one more thing");
  });

  it("/undo in line mode puts the files back and says so once", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "open('notes.txt', 'w').write('one')" },
        { text: "wrote one" },
        { code: "open('notes.txt', 'w').write('two')" },
        { text: "wrote two" },
      ],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "zero");
    const first = await runRelm(["run", "write one"], { env: rig.env, cwd: rig.cwd });
    expect(first.code, first.stderr).toBe(0);
    const undone = await runRelm(["--continue"], { env: rig.env, cwd: rig.cwd, input: "write two\n/undo\n" });
    expect(undone.code, undone.stderr).toBe(0);
    expect(readFileSync(join(rig.cwd, "notes.txt"), "utf8")).toBe("one");
    const said = `${undone.stdout}${undone.stderr}`.split("\n").filter((l) => /before turn 3/.test(l));
    expect(said).toEqual([
      expect.stringContaining("↶ files put back to before turn 3 (1 restored, 0 removed)"),
    ]);
  });

  it("--resume without an id needs a terminal for its picker, and says what to type instead", async () => {
    const home = tempDir();
    try {
      const result = await runRelm(["--resume"], { env: { ...process.env, RELM_HOME: home.path } });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^relm: --resume without an id opens a picker, which needs a terminal/);
      expect(result.stderr).toContain('relm run --resume ID "message"');
    } finally {
      home.cleanup();
    }
  });
});

/** Runs a copy of relm's main.js (not the one in ROOT/dist) as a real process. */
function runCopy(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end("");
  });
}

/** The bundle's chunks holding the UI's modules (esbuild names each bundled file in a `// path` line). */
const UI_MODULE = /^\/\/ (dist\/tui\/|node_modules\/@mariozechner\/pi-tui\/)/m;

describe("the one-shot paths without the UI's code", () => {
  let copy: { path: string; cleanup: () => void };
  let bin: string;
  let removed: string[];

  beforeAll(() => {
    // A copy of the build with every chunk of the UI deleted: a path that loads the UI cannot run in it.
    copy = tempDir("relm-no-ui-");
    cpSync(join(ROOT, "dist"), join(copy.path, "dist"), { recursive: true });
    copyFileSync(join(ROOT, "package.json"), join(copy.path, "package.json"));
    symlinkSync(join(ROOT, "python"), join(copy.path, "python"));
    symlinkSync(join(ROOT, "node_modules"), join(copy.path, "node_modules"));
    const cli = join(copy.path, "dist/cli");
    removed = readdirSync(cli).filter(
      (f) => f.endsWith(".js") && UI_MODULE.test(readFileSync(join(cli, f), "utf8")),
    );
    for (const f of removed) rmSync(join(cli, f));
    rmSync(join(copy.path, "dist/tui"), { recursive: true, force: true });
    bin = join(cli, "main.js");
  });

  afterAll(() => copy.cleanup());

  it("the UI is a chunk of its own, not part of the bundle every command loads", () => {
    expect(removed.length).toBeGreaterThan(0);
    expect(removed).not.toContain("app.js");
    expect(removed).not.toContain("main.js");
  });

  it("relm --version, run, -p, run --json, agents and a scripted login work without it", async () => {
    const rig = await startRig("openai", { script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const run = (args: string[]) => runCopy(bin, args, rig.env, rig.cwd);
    const version = await run(["--version"]);
    expect(version.code, version.stderr).toBe(0);
    for (const [args, answer] of [
      [["run", "first"], "one\n"],
      [["-p", "second"], "two\n"],
    ] as const) {
      const result = await run([...args]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(answer);
    }
    const json = await run(["run", "--json", "third"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain('"type":"final"');
    const agents = await run(["agents"]);
    expect(agents.code, agents.stderr).toBe(0);
    expect(agents.stdout.split("\n").filter((l) => l.includes("done"))).toHaveLength(3);
    const login = await run(["login", "--model", "scripted", "--base-url", "http://127.0.0.1:9/v1"]);
    expect(login.code, login.stderr).toBe(0);
    expect(readFileSync(join(rig.home, "config.json"), "utf8")).toContain(
      '"baseUrl": "http://127.0.0.1:9/v1"',
    );
  });

  it("while relm in a terminal does load it (so the check above could fail)", async () => {
    const pty = await import("@lydell/node-pty");
    const home = tempDir();
    try {
      const term = pty.spawn(process.execPath, [bin], {
        cols: 100,
        rows: 30,
        cwd: home.path,
        env: { ...process.env, RELM_HOME: home.path, TERM: "xterm-256color", RELM_NO_TUI: "" },
      });
      let screen = "";
      term.onData((d) => {
        screen += d;
      });
      const code = await new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
      expect(code).toBe(1);
      expect(
        removed.some((f) => screen.includes(f)),
        screen,
      ).toBe(true);
    } finally {
      home.cleanup();
    }
  });
});
