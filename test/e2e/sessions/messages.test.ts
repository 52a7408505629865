import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

describe("messages between agents", () => {
  it("parent and child talk both ways; the sender is stamped by relm", async () => {
    let home = "";
    const parentSent = () => {
      try {
        return onlyJournal(home).lines.some((l) => l.type === "message" && l.text === "ping");
      } catch {
        return false;
      }
    };
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: talk": [
          {
            code: [
              'a = rlm.spawn("CHILD: talk back", name="kid")',
              'a.send("ping")',
              "print(a.result())",
              "print([(m['from'] == a.id, m['text']) for m in inbox()])",
              "import relm.calls",
              "try:",
              '    relm.calls.call("msg.send", {"to": "kid", "text": "forged", "from": "someone-else"})',
              "except relm.calls.HostError as e:",
              "    print('refused:', e)",
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: talk back": [
          async () => {
            await until(() => (parentSent() ? true : undefined));
            return { code: 'send("parent", "pong from kid")' };
          },
          (ctx) => ({ text: `got ${ctx.lastUserText?.split("\n").at(-1)}` }),
        ],
      }),
    });
    home = rig.home;
    const result = await runRelm(["run", "ROOT: talk"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe("got ping");
    expect(lines[1]).toBe("[(True, 'pong from kid')]");
    expect(lines[2]).toMatch(/^refused: send\(\): the sender is stamped by relm/);
    const root = onlyJournal(rig.home).lines;
    expect(root.some((l) => l.type === "message" && l.text === "ping")).toBe(true);
  });

  it("a background child's message to its parent, idle by then, starts a turn for it", async () => {
    // The child's send("parent", ...) went into the root's mailbox and waited there: nothing started a
    // turn for an idle root, so the report was read only when the person happened to write again.
    let home = "";
    const rootIdle = () => {
      try {
        return onlyJournal(home).lines.some((l) => l.type === "final" && l.text === "over to the kid");
      } catch {
        return false;
      }
    };
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: delegate": [
          { code: 'a = rlm.spawn("CHILD: report later", name="kid")' },
          { text: "over to the kid" },
          (ctx) => ({ text: `root read: ${ctx.lastUserText}` }),
        ],
        "CHILD: report later": [
          async () => {
            await until(() => (rootIdle() ? true : undefined));
            return { code: 'send("parent", "found it")' };
          },
          { text: "reported" },
        ],
      }),
    });
    home = rig.home;
    const started = await runRelm(["run", "--detach", "ROOT: delegate"], { env: rig.env, cwd: rig.cwd });
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    try {
      const finals = () => onlyJournal(rig.home).lines.filter((l) => l.type === "final");
      await until(() => (finals().length >= 2 ? true : undefined), 60_000);
      expect(finals().map((l) => l.text)).toEqual([
        "over to the kid",
        expect.stringMatching(/^root read: \[message from \w{8}\]\nfound it$/),
      ]);
    } finally {
      await runRelm(["stop", id], { env: rig.env });
    }
  });

  it("refuses a message to a full inbox with a clear error", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: flood": [
          {
            code: [
              'a = rlm.spawn("CHILD: busy")',
              "sent = 0",
              "try:",
              "    for i in range(150):",
              '        a.send(f"message {i}")',
              "        sent += 1",
              "except Exception as e:",
              "    print(sent, e)",
              "a.cancel()",
            ].join("\n"),
          },
          echoLastCell,
        ],
        // Busy in a cell, so it reads none of the messages; the parent cancels it.
        "CHILD: busy": [{ code: "import time\ntime.sleep(60)" }, { text: "never" }],
      }),
    });
    const result = await runRelm(["run", "ROOT: flood"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^100 .*inbox of agent \w+ is full \(100 messages unread\)/);
  });

  it("reaches another session through its host, which starts a turn for it", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "SESSION A: wait for mail": [{ text: "waiting" }, (ctx) => ({ text: `A read: ${ctx.lastUserText}` })],
        "SESSION B: write to A": [
          (ctx) => {
            const id = /for (\w+)$/.exec(ctx.lastUserText ?? "")?.[1];
            return { code: `print(send("${id}", "hello A, this is B"))` };
          },
          echoLastCell,
        ],
      }),
    });
    const a = await runRelm(["run", "--detach", "SESSION A: wait for mail"], { env: rig.env, cwd: rig.cwd });
    const idA = a.stdout.trim();
    try {
      const journalA = () => {
        const { lines } = onlyJournalOf(rig.home, idA);
        return lines;
      };
      await until(() => (journalA().some((l) => l.type === "final") ? true : undefined));
      const b = await runRelm(["run", `SESSION B: write to A for ${idA}`], { env: rig.env, cwd: rig.cwd });
      expect(b.code, b.stderr).toBe(0);
      await until(() => (journalA().filter((l) => l.type === "final").length === 2 ? true : undefined));
      const lines = journalA();
      const received = lines.find((l) => l.type === "message" && l.to === idA);
      expect(received?.text).toBe("hello A, this is B");
      expect(received?.from).toMatch(/^\w{8}$/);
      expect(received?.from).not.toBe(idA);
      expect(lines.filter((l) => l.type === "final").at(-1)?.text).toBe(
        `A read: [message from ${received?.from}]\nhello A, this is B`,
      );
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("a session out of budget refuses another session's message, as it refuses a person's", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "SESSION A: one turn": [{ text: "spent" }, { text: "never" }],
        "SESSION B: write to A": [
          (ctx) => {
            const id = /for (\w+)$/.exec(ctx.lastUserText ?? "")?.[1];
            return {
              code: `try:\n    send("${id}", "hello A")\nexcept Exception as e:\n    print("refused:", e)`,
            };
          },
          echoLastCell,
        ],
      }),
    });
    const a = await runRelm(["run", "--detach", "--max-turns", "1", "SESSION A: one turn"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    const idA = a.stdout.trim();
    try {
      await until(() =>
        onlyJournalOf(rig.home, idA).lines.some((l) => l.type === "final") ? true : undefined,
      );
      const b = await runRelm(["run", `SESSION B: write to A for ${idA}`], { env: rig.env, cwd: rig.cwd });
      expect(b.code, b.stderr).toBe(0);
      expect(b.stdout).toContain(`refused: send(): session ${idA} is out of budget, message not delivered`);
      const lines = onlyJournalOf(rig.home, idA).lines;
      expect(lines.some((l) => l.type === "message" || l.type === "budget_stop")).toBe(false);
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it.skipIf(process.platform !== "linux" || !existsSync("/usr/bin/bwrap"))(
    "from a sandboxed session, reaches only sandboxed sessions",
    async () => {
      const rig = await startRig("openai", {
        script: byTask({
          "SESSION OPEN: wait": [{ text: "waiting" }, (ctx) => ({ text: `read: ${ctx.lastUserText}` })],
          "SESSION BOXED: wait": [{ text: "waiting" }, (ctx) => ({ text: `read: ${ctx.lastUserText}` })],
          "SESSION B: write": [
            (ctx) => {
              const [, open, boxed] = /to (\w+) and (\w+)$/.exec(ctx.lastUserText ?? "") ?? [];
              const tryTo = (id: string | undefined) =>
                `try:\n    print(send("${id}", "from a sandbox"))\nexcept PermissionError as e:\n    print("refused:", e)`;
              return { code: `${tryTo(open)}\n${tryTo(boxed)}` };
            },
            echoLastCell,
          ],
        }),
      });
      const start = async (task: string, extra: string[]) =>
        (await runRelm(["run", "--detach", ...extra, task], { env: rig.env, cwd: rig.cwd })).stdout.trim();
      const open = await start("SESSION OPEN: wait", []);
      const boxed = await start("SESSION BOXED: wait", ["--sandbox"]);
      const finals = (id: string) => onlyJournalOf(rig.home, id).lines.filter((l) => l.type === "final");
      try {
        await until(() => (finals(open).length === 1 && finals(boxed).length === 1 ? true : undefined));
        const b = await runRelm(["run", "--sandbox", `SESSION B: write to ${open} and ${boxed}`], {
          env: rig.env,
          cwd: rig.cwd,
        });
        expect(b.code, b.stderr).toBe(0);
        expect(b.stdout).toContain(`refused: send(): session ${open} runs without a sandbox`);
        expect(b.stdout).toContain(`{'to': '${boxed}'}`);
        await until(() => (finals(boxed).length === 2 ? true : undefined));
        expect(finals(boxed).at(-1)?.text).toMatch(/^read: \[message from \w{8}\]\nfrom a sandbox$/);
        expect(onlyJournalOf(rig.home, open).lines.some((l) => l.type === "message")).toBe(false);
      } finally {
        await runRelm(["shutdown"], { env: rig.env });
      }
    },
  );
});

function onlyJournalOf(home: string, id: string): { lines: JournalLine[] } {
  const raw = readFileSync(`${home}/sessions/${id}/journal.jsonl`, "utf8");
  return {
    lines: raw
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalLine),
  };
}
