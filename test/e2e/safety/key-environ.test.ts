// Without --sandbox a cell runs as the user and can read /proc/PID/environ and cmdline of every process
// of that user: the relm processes above its kernel (the `relm run` the user started with the key, a
// session host, the terminal UI) must hold no key there (docs/security.md). Each case starts relm with a
// provider key and a URL with a password in its environment, and a cell walks its kernel's ancestors by
// their ppid up to pid 1, and every process on the machine, for either value.
//
// The test runner is an ancestor too, and it never holds them: they are only in the environment it
// starts relm with, so no process is left out of the walk. (A user's own shell that exported the key is
// what docs/security.md says remains.)
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptItem } from "../../../src/scripted/index.js";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import type { Rig } from "../../support/scripted.js";
import { useTui } from "../../support/tui.js";
import { until } from "../../support/wait.js";

const { startRig, open } = useTui();

interface Seen {
  pid: number;
  comm: string;
  /** true: the key or password is there; false: read, not there; a string: why it could not be read. */
  environ: boolean | string;
  cmdline: boolean | string;
}

interface Walk {
  chain: Seen[];
  /** Every process on the machine whose environ holds either value. */
  holders: number[];
}

function secrets() {
  const key = `sk-test-${randomBytes(12).toString("hex")}`;
  const password = `pw-${randomBytes(12).toString("hex")}`;
  return {
    key,
    password,
    env: { OPENAI_API_KEY: key, DATABASE_URL: `postgres://app:${password}@db.invalid/x` },
  };
}

/** A cell that walks the kernel's ancestors and /proc, printing what it found as one JSON line. */
function walkCell(values: string[]): string {
  return `import json, os
NEEDLES = [v.encode() for v in ${JSON.stringify(values)}]
def holds(path):
    try:
        data = open(path, "rb").read()
    except OSError as e:
        return type(e).__name__
    return any(n in data for n in NEEDLES)
def stat(pid):
    text = open(f"/proc/{pid}/stat").read()
    return text[text.index("(") + 1:text.rindex(")")], int(text[text.rindex(")") + 2:].split()[1])
chain, pid = [], os.getpid()
while pid > 0:
    comm, ppid = stat(pid)
    chain.append({"pid": pid, "comm": comm, "environ": holds(f"/proc/{pid}/environ"), "cmdline": holds(f"/proc/{pid}/cmdline")})
    pid = ppid
holders = [int(p) for p in os.listdir("/proc") if p.isdigit() and holds(f"/proc/{p}/environ") is True]
print("WALK " + json.dumps({"chain": chain, "holders": holders}))`;
}

function walkScript(values: string[], walks: Walk[]): ScriptItem[] {
  return [
    { code: walkCell(values) },
    (ctx) => {
      const line = /WALK (\{.*\})/.exec(ctx.lastToolResult ?? "")?.[1];
      if (line) walks.push(JSON.parse(line) as Walk);
      return { text: line ? "walked" : `no walk: ${ctx.lastToolResult}` };
    },
  ];
}

/** No process above the kernel, nor any other, shows either value; at least one relm process was read. */
function expectNoKey(walk: Walk | undefined): void {
  expect(walk, "the cell's walk").toBeDefined();
  const { chain, holders } = walk as Walk;
  const described = chain
    .map((s) => `${s.pid} ${s.comm}: environ ${s.environ}, cmdline ${s.cmdline}`)
    .join("; ");
  for (const seen of chain) {
    expect(seen.environ, described).not.toBe(true);
    expect(seen.cmdline, described).not.toBe(true);
  }
  expect(holders, described).toEqual([]);
  // The walk really read a relm process (node) above the kernel: unreadable would prove nothing.
  expect(
    chain.some((s) => s.comm.startsWith("node") && s.environ === false),
    described,
  ).toBe(true);
}

/** The key still reached the model: every request carried it (handed over, not lost). */
function expectKeyUsed(rig: Rig, key: string): void {
  expect(rig.model.requests.length).toBeGreaterThan(0);
  for (const request of rig.model.requests) expect(request.headers.authorization).toBe(`Bearer ${key}`);
}

function environOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return "";
  }
}

function journal(rig: Rig): JournalLine[] {
  try {
    return onlyJournal(rig.home).lines;
  } catch {
    return [];
  }
}

function finals(rig: Rig): number {
  return journal(rig).filter((l) => l.type === "final").length;
}

describe.skipIf(process.platform !== "linux")("keys out of relm's processes' /proc/PID/environ", () => {
  it("`relm run` in the foreground: the process the user started with the key holds it no longer", async () => {
    const { key, password, env } = secrets();
    const walks: Walk[] = [];
    const rig = await startRig("openai", { script: walkScript([key, password], walks) }, { env });
    const result = await runRelm(["run", "walk the ancestors"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("walked");
    expectNoKey(walks[0]);
    expectKeyUsed(rig, key);
  });

  it("`relm run --detach`: the host gets the keys on a pipe; so does the host its idle stub starts again", async () => {
    const { key, password, env } = secrets();
    const walks: Walk[] = [];
    const script = [...walkScript([key, password], walks), ...walkScript([key, password], walks)];
    const rig = await startRig(
      "openai",
      { script },
      { env, config: { kernelIdleTimeoutSeconds: 1, idleTimeoutSeconds: 300 } },
    );
    const started = await runRelm(["run", "--detach", "walk the ancestors"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    await until(() => (finals(rig) === 1 ? true : undefined), 60_000);
    expectNoKey(walks[0]);

    // Idle, the host hands its place to a stub, which holds the keys for the host it starts again.
    const stub = await until(() => {
      const pid = (
        JSON.parse(readFileSync(join(rig.home, "sessions", id, "state.json"), "utf8")) as { pid: number }
      ).pid;
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("host/stub.js") ? pid : undefined;
    }, 60_000);
    const stubEnviron = environOf(stub);
    expect(stubEnviron).toContain("RELM_HOME=");
    expect(stubEnviron).not.toContain(key);
    expect(stubEnviron).not.toContain(password);
    const sent = await runRelm(["send", id, "walk them again"], { env: rig.env, cwd: rig.cwd });
    expect(sent.code, sent.stderr).toBe(0);
    await until(() => (finals(rig) === 2 ? true : undefined), 60_000);
    expectNoKey(walks[1]);
    expectKeyUsed(rig, key);
  });

  it("the terminal UI: neither it nor the host it starts holds the key", async () => {
    const { key, password, env } = secrets();
    const walks: Walk[] = [];
    const rig = await startRig("openai", { script: walkScript([key, password], walks) }, { env });
    const ui = open(rig, [], { cols: 100, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("walk the ancestors");
    await ui.press("enter");
    await until(() => (finals(rig) === 1 ? true : undefined), 60_000);
    expectNoKey(walks[0]);
    // The UI runs on (the host's parent): it was in the walk, and no process holds either value.
    expect(environOf(ui.pid)).not.toContain(key);
    expectKeyUsed(rig, key);
  });
});
