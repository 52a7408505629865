// `relm run --sandbox` end to end: real bubblewrap, real kernels, the scripted model over HTTP. The same
// checks run in the root's kernel and in a child's (forked from the template inside the sandbox).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { BWRAP, outsideFolder } from "../../support/sandbox.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = BWRAP;

const servers: (() => Promise<void>)[] = [];
const elsewhere = outsideFolder(".relm-sandbox-e2e-");
afterAll(async () => {
  for (const close of servers.splice(0)) await close();
});

/** An HTTP server on the host's 127.0.0.1 that answers "reached". */
async function hostServer(): Promise<number> {
  const s = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  servers.push(() => new Promise<void>((r) => s.close(() => r())));
  return (s.address() as { port: number }).port;
}

/**
 * One line the cell prints: what it could do. `who` names the file `!touch` makes in the project.
 * Each probe fails closed (an exception means "no"), so an unsandboxed kernel prints the other values.
 */
function checksCell(who: string, home: string, ports: number[]): string {
  return [
    "import os, urllib.request",
    "r = []",
    "try:",
    `    open(${JSON.stringify(join(elsewhere, `outside-${who}`))}, 'w'); r.append('write:yes')`,
    "except OSError as e:",
    "    r.append('write:' + e.strerror)",
    `!touch touched-${who}`,
    `r.append('touch:' + str(os.path.exists('touched-${who}')))`,
    ...ports.flatMap((p) => [
      "try:",
      `    r.append('${p}:' + urllib.request.urlopen('http://127.0.0.1:${p}/', timeout=5).read().decode())`,
      "except Exception as e:",
      `    r.append('${p}:' + type(e).__name__)`,
    ]),
    "try:",
    `    open('/proc/${process.pid}/environ').read(); r.append('environ:read')`,
    "except OSError:",
    "    r.append('environ:hidden')",
    `r.append('run:' + str(os.path.exists(${JSON.stringify(join(home, "run"))})))`,
    "print(' '.join(r))",
  ].join("\n");
}

const ROOT_TASK = "ROOT: check the sandbox";
const CHILD_TASK = "CHILD: check the sandbox";

async function sandboxRig(ports: number[]) {
  let home = "";
  const rig = await startRig("openai", {
    script: byTask({
      [ROOT_TASK]: [
        () => ({ code: checksCell("root", home, ports) }),
        (ctx) => ({
          code: `print(${JSON.stringify(ctx.lastToolResult?.trim() ?? "")})\nprint('child', rlm(${JSON.stringify(CHILD_TASK)}))\nprint('llm', llm('LLM: ping'))`,
        }),
        echoLastCell,
      ],
      [CHILD_TASK]: [() => ({ code: checksCell("child", home, ports) }), echoLastCell],
      "LLM: ping": [{ text: "pong" }],
    }),
  });
  home = rig.home;
  // Another session's socket directory, to be invisible.
  mkdirSync(join(rig.home, "run"), { recursive: true });
  writeFileSync(join(rig.home, "run", "other-session.sock"), "");
  return rig;
}

describe.skipIf(!linux)("relm run --sandbox", () => {
  it("confines the root's and a child's kernel; rlm() and llm() still work from inside", async () => {
    const port = await hostServer();
    const rig = await sandboxRig([port]);
    const result = await runRelm(["run", "--sandbox", ROOT_TASK], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    // The server is out of reach: the sandbox's proxy (running with an empty list, so that an approved
    // request("net") can extend it live) answers 403 for it (docs/sandbox.md, "Approvals").
    const confined = `write:Read-only file system touch:True ${port}:HTTPError environ:hidden run:False`;
    expect(lines[0]).toBe(confined);
    expect(lines[1]).toBe(`child ${confined}`);
    expect(lines[2]).toBe("llm pong");
    expect(existsSync(join(rig.cwd, "touched-root"))).toBe(true);
    expect(existsSync(join(rig.cwd, "touched-child"))).toBe(true);
    expect(existsSync(join(elsewhere, "outside-root"))).toBe(false);
    // The child's kernel was forked from the template, inside the sandbox.
    const sessions = readdirSync(join(rig.home, "sessions"), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    );
    expect(sessions).toHaveLength(1);
    const dir = join(rig.home, "sessions", sessions[0]!.name);
    const [child] = readdirSync(join(dir, "children"));
    const childJournal = readFileSync(join(dir, "children", child!, "journal.jsonl"), "utf8");
    expect(childJournal).toMatch(/"event":"started"[^\n]*forked from template/);
  });

  it("reaches an --allow-net HOST:PORT, and nothing else, from the root and a child", async () => {
    const allowed = await hostServer();
    const other = await hostServer();
    const rig = await sandboxRig([allowed, other]);
    const result = await runRelm(["run", "--sandbox", `--allow-net=127.0.0.1:${allowed}`, ROOT_TASK], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    // The proxy refuses the other port with 403, which urllib raises as HTTPError.
    const checks = `${allowed}:reached ${other}:HTTPError environ:hidden run:False`;
    expect(lines[0]).toContain(checks);
    expect(lines[1]).toContain(checks);
    expect(lines[2]).toBe("llm pong");
  });

  it("gives the same answer as an unsandboxed run", async () => {
    const script = () =>
      byTask({
        "ROOT: sum": [
          { code: "x = sum(range(10))\nprint(x, rlm('CHILD: double', n=x), llm('LLM: word'), data)" },
          echoLastCell,
        ],
        "CHILD: double": [{ code: "submit(n * 2)" }],
        "LLM: word": [{ text: "word" }],
      });
    const plain = await startRig("openai", { script: script() });
    const boxed = await startRig("openai", { script: script() });
    // A --var file in the host's /tmp, which the sandbox replaces with its own: bound in read-only.
    const data = join(tmpdir(), `relm-sandbox-var-${process.pid}.txt`);
    writeFileSync(data, "from-a-file");
    servers.push(async () => rmSync(data, { force: true }));
    const a = await runRelm(["run", `--var=data=@${data}`, "ROOT: sum"], { env: plain.env, cwd: plain.cwd });
    const b = await runRelm(["run", "--sandbox", `--var=data=@${data}`, "ROOT: sum"], {
      env: boxed.env,
      cwd: boxed.cwd,
    });
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(a.stdout.trim()).toBe("45 90 word from-a-file");
  });

  it("--kernel sandbox is --sandbox", async () => {
    const rig = await startRig("openai", {
      script: [{ code: `open(${JSON.stringify(join(elsewhere, "via-kernel-uri"))}, 'w')` }, echoLastCell],
    });
    const result = await runRelm(["run", "--kernel", "sandbox", "write elsewhere"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Read-only file system/);
    expect(existsSync(join(elsewhere, "via-kernel-uri"))).toBe(false);
  });

  it("plan mode with a --kernel elsewhere says that the mode does not confine those kernels", async () => {
    // `--mode plan --kernel cmd:…` ran its kernel on this machine, outside the sandbox, and wrote the
    // project, with nothing said: the status line showed "plan (read-only)".
    const rig = await startRig("openai", {
      script: [
        { code: "_ = open('written.txt', 'w').write('x')" },
        echoLastCell,
        { code: "_ = open('written.txt', 'w').write('x')" },
        echoLastCell,
      ],
    });
    const uri = "cmd:env RELM_VIA=cmd";
    const result = await runRelm(["run", "--mode", "plan", "--kernel", uri, "write here"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(rig.cwd, "written.txt"))).toBe(true); // the user's kernel, as the user said
    expect(result.stderr).toContain(
      `⚠ plan mode does not confine this session's kernels: they run through ${uri}, outside this machine's sandbox`,
    );
    // Without --kernel the same session is confined and says nothing of the kind.
    const confined = await runRelm(["run", "--mode", "plan", "write here"], { env: rig.env, cwd: rig.cwd });
    expect(confined.stderr).not.toContain("does not confine");
  });

  it("relm doctor says whether sandboxing works here", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(result.stdout).toMatch(/^ok +sandbox +bubblewrap [\d.]+, pid\/net\/mount namespaces work/m);
  });

  it("relm doctor names the mode new sessions get as a session would choose it, RELM_MODE included", async () => {
    // It read config.json only: with RELM_MODE=full it said "new sessions: mode workspace (the default)",
    // and a RELM_MODE no session accepts passed as "ok".
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const full = await runRelm(["doctor"], { env: { ...rig.env, RELM_MODE: "full" }, cwd: rig.cwd });
    expect(full.stdout).toMatch(/^ok +sandbox +.*new sessions: mode full \(RELM_MODE=full\)$/m);
    const plan = await runRelm(["doctor"], { env: { ...rig.env, RELM_MODE: "read-only" }, cwd: rig.cwd });
    expect(plan.stdout).toMatch(/^ok +sandbox +.*new sessions: mode plan \(RELM_MODE=plan\)$/m);
    const bad = await runRelm(["doctor"], { env: { ...rig.env, RELM_MODE: "bogus" }, cwd: rig.cwd });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /^FAIL +sandbox +RELM_MODE must be plan \(read-only\), workspace or full, got "bogus"/m,
    );
    expect(bad.stderr).not.toContain("internal error");
    const none = await runRelm(["doctor"], { env: { ...rig.env, RELM_MODE: "" }, cwd: rig.cwd });
    expect(none.stdout).toMatch(/^ok +sandbox +.*new sessions: mode workspace \(the default\)$/m);
  });

  it("without bubblewrap, says how to install it before anything starts", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const env = { ...rig.env, PATH: "/nonexistent" };
    const result = await runRelm(["run", "--sandbox", "task"], { env, cwd: rig.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^relm: --sandbox needs bubblewrap \(bwrap\), which is not installed; install bubblewrap: apt-get install bubblewrap/m,
    );
    expect(rig.model.requests).toHaveLength(0);
  });

  it("--allow-net without a sandbox is a usage error", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const result = await runRelm(["run", "--allow-net=pypi.org", "task"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--allow-net applies to a sandboxed kernel/);
  });
});
