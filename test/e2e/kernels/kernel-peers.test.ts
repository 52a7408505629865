// A session's socket is the person's: code running in a relm kernel (its own session's or another's)
// may read a session and message it, stamped with its own session, but never act as the person
// (send, stop, interrupt, model, mode, approve, undo, …). Real kernels, real sockets, scripted model. Linux only:
// elsewhere the peer cannot be identified (docs/sessions.md).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionClient } from "../../../src/host/client.js";
import { RELM_BIN, runRelm } from "../../support/cli.js";
import type { JournalLine } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

// Tries every kind of request on one session socket; prints each outcome: "ok" or the error code.
const ATTACK = `
import json, socket, sys

def call(path, method, params):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    s.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + "\\n").encode())
    answer = json.loads(s.makefile("rb").readline())
    s.close()
    return answer["error"]["code"] if "error" in answer else "ok"

def attack(path, label):
    out = {"send": call(path, "send", {"text": "INJECTED by " + label})}
    out["message"] = call(path, "message", {"from": "user", "text": "FORGED by " + label})
    for method, params in [("stop", {}), ("interrupt", {}), ("model", {"name": "evil"}), ("undo", {}),
                           ("goal", {"text": "evil"}), ("child.cancel", {"id": "abc"}), ("schedule.reload", {}),
                           ("mode", {"mode": "full"}),
                           ("approve", {"id": "abc", "answer": "session", "from": "ui"})]:
        out[method] = call(path, method, params)
    out["status"] = call(path, "status", {})
    out["info"] = call(path, "info", {})
    return out

if __name__ == "__main__":
    print(json.dumps(attack(sys.argv[1], sys.argv[2])))
`;

/**
 * The cell: attacks its own session's socket and session `other`'s, three ways each: from the kernel
 * process itself, from a subprocess with an empty environment, and from a daemon (setsid + a double
 * fork, environment emptied) that is no child of the kernel any more.
 */
function attackCell(other: string): string {
  return [
    "import json, os, pathlib, subprocess, sys, time",
    `pathlib.Path("attack.py").write_text(${JSON.stringify(ATTACK)})`,
    'home, me = os.environ["RELM_HOME"], os.environ["RELM_KERNEL"]',
    'g = {"__name__": "attack"}',
    'exec(open("attack.py").read(), g)',
    "results = {}",
    `for target, sid in (("own", me), ("other", ${JSON.stringify(other)})):`,
    '    path = os.path.join(home, "run", sid + ".sock")',
    '    results[target + "/cell"] = g["attack"](path, target + "/cell")',
    '    done = subprocess.run([sys.executable, "attack.py", path, target + "/cleared"], env={}, capture_output=True, text=True)',
    '    results[target + "/cleared"] = json.loads(done.stdout or done.stderr)',
    '    out = pathlib.Path(f"daemon-{target}.json")',
    "    os.system(f\"setsid sh -c '(env -i {sys.executable} attack.py {path} {target}/daemon > {out} 2>&1 &)'\")",
    "    deadline = time.time() + 30",
    '    while not out.exists() or not out.read_text().endswith("\\n"):',
    "        assert time.time() < deadline, 'the daemon did not answer'",
    "        time.sleep(0.05)",
    "    results[target + '/daemon'] = json.loads(out.read_text())",
    "print(json.dumps(results, sort_keys=True))",
  ].join("\n");
}

const REFUSED = -32001;
const EXPECTED = {
  send: REFUSED,
  message: "ok",
  stop: REFUSED,
  interrupt: REFUSED,
  model: REFUSED,
  undo: REFUSED,
  goal: REFUSED,
  "child.cancel": REFUSED,
  "schedule.reload": REFUSED,
  // Code in a kernel cannot widen its own permission mode.
  mode: REFUSED,
  // Nor answer its own request for more (docs/sandbox.md, "Approvals").
  approve: REFUSED,
  status: "ok",
  info: "ok",
};

/** The journal of session `id` (its events, without the header); empty before it exists. */
function linesOf(rig: Rig, id: string): JournalLine[] {
  try {
    return readFileSync(join(rig.home, "sessions", id, "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => JSON.parse(l) as JournalLine);
  } catch {
    return [];
  }
}

describe.runIf(process.platform === "linux")("a session socket and the kernels", () => {
  it("a kernel can only message a session (as itself) and read it; a person's client still sends", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "SESSION B: wait": [{ text: "B waiting" }],
        "SESSION A: try": [
          (ctx) => ({ code: attackCell(/for (\w+)$/.exec(ctx.lastUserText ?? "")?.[1] ?? "") }),
          echoLastCell,
        ],
      }),
    });
    const b = await runRelm(["run", "--detach", "SESSION B: wait"], { env: rig.env, cwd: rig.cwd });
    expect(b.code, b.stderr).toBe(0);
    const idB = b.stdout.trim();
    try {
      await until(() => (linesOf(rig, idB).some((l) => l.type === "final") ? true : undefined));
      const a = await runRelm(["run", `SESSION A: try for ${idB}`], { env: rig.env, cwd: rig.cwd });
      expect(a.code, a.stderr).toBe(0);
      const idA = readdirSync(join(rig.home, "sessions")).find((id) => id !== idB) ?? "";
      const linesA = linesOf(rig, idA);
      const cell = linesA.find((l) => l.type === "cell_output");
      expect(cell?.status, String(cell?.output)).toBe("ok");
      const results = JSON.parse(String(cell?.output).trim().split("\n").at(-1) ?? "{}") as Record<
        string,
        unknown
      >;
      const modes = ["own/cell", "own/cleared", "own/daemon", "other/cell", "other/cleared", "other/daemon"];
      expect(Object.keys(results).sort()).toEqual(modes.sort());
      for (const mode of modes) expect(results[mode], mode).toEqual(EXPECTED);

      // Nothing a kernel sent became a person's message, in either session; its messages carry its
      // own session as the sender, whatever `from` it claimed.
      for (const [id, target] of [
        [idA, "own"],
        [idB, "other"],
      ] as const) {
        const lines =
          id === idB
            ? await until(() => {
                const l = linesOf(rig, idB);
                return l.filter((e) => e.type === "message").length >= 3 ? l : undefined;
              })
            : linesA;
        const injected = lines.filter(
          (l) => (l.type === "user" || l.type === "message") && String(l.text).includes("INJECTED"),
        );
        expect(injected, id).toEqual([]);
        const forged = lines.filter((l) => l.type === "message" && String(l.text).startsWith("FORGED by"));
        // (A message that reaches a busy session is journaled by its host and again as the turn reads it.)
        expect([...new Set(forged.map((l) => l.text))].sort(), id).toEqual(
          [`FORGED by ${target}/cell`, `FORGED by ${target}/cleared`, `FORGED by ${target}/daemon`].sort(),
        );
        for (const m of forged) expect(m.from, `${id}: ${m.text}`).toBe(idA);
      }

      // The person's own client (this test process, in no kernel) still acts as the user.
      const client = await SessionClient.connect(rig.home, idB);
      expect(client).toBeDefined();
      try {
        expect(await client!.call("send", { text: "hello from a person" })).toMatchObject({
          delivered: expect.any(String),
        });
        expect(await client!.call("message", { from: "tester", text: "stamped as given" })).toEqual({
          delivered: true,
        });
      } finally {
        client!.close();
      }
      const after = await until(() => {
        const l = linesOf(rig, idB);
        return l.some((e) => e.type === "user" && String(e.text).includes("hello from a person"))
          ? l
          : undefined;
      });
      expect(after.find((l) => l.type === "message" && l.text === "stamped as given")?.from).toBe("tester");
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  }, 120_000);

  it("a cell that started a session may drive it, as that session's user", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "SESSION C: nested": [{ text: "C waiting" }, (ctx) => ({ text: `C read: ${ctx.lastUserText}` })],
        "SESSION A: start one": [
          {
            code: [
              "import json, subprocess, time",
              `relm = [${JSON.stringify(process.execPath)}, ${JSON.stringify(RELM_BIN)}]`,
              'c = subprocess.run(relm + ["run", "--detach", "SESSION C: nested"], capture_output=True, text=True)',
              "cid = c.stdout.strip()",
              'sent = subprocess.run(relm + ["send", cid, "more from A"], capture_output=True, text=True)',
              // Wait for C to have read it, then stop it (also as its user) before this session ends.
              'journal = f\'{__import__("os").environ["RELM_HOME"]}/sessions/{cid}/journal.jsonl\'',
              "deadline = time.time() + 30",
              "while 'C read:' not in open(journal).read() and time.time() < deadline:",
              "    time.sleep(0.05)",
              'stopped = subprocess.run(relm + ["stop", cid], capture_output=True, text=True)',
              "print(cid, sent.returncode, stopped.returncode, (sent.stderr + stopped.stderr).strip())",
            ].join("\n"),
          },
          echoLastCell,
        ],
      }),
    });
    try {
      const a = await runRelm(["run", "SESSION A: start one"], { env: rig.env, cwd: rig.cwd });
      expect(a.code, a.stderr).toBe(0);
      const [idC, sent, stopped, ...said] = a.stdout.trim().split(" ");
      expect(idC).toMatch(/^\w{8}$/);
      expect([sent, stopped], said.join(" ")).toEqual(["0", "0"]);
      const lines = linesOf(rig, idC ?? "");
      expect(lines.some((l) => l.type === "user" && String(l.text).includes("more from A"))).toBe(true);
      expect(lines.some((l) => l.type === "final" && String(l.text).startsWith("C read:"))).toBe(true);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  }, 120_000);
});
