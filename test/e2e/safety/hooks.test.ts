// The user's hooks (docs/hooks.md) in real `relm run` sessions against the scripted model over HTTP:
// every event's JSON reaches a hook that appends its stdin to a file, a PreToolUse hook blocks a cell
// (the model reads why, the cell never ran), a UserPromptSubmit hook blocks a message or adds to it,
// PreCompact fires before a compaction (auto and /compact), a Stop hook that always objects sends the
// agent back a bounded number of times, and a detached session's end fires the Notification hook. Also
// Claude Code's matcher "*", and a mistake in the hooks said as one line naming the file and the place.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { type JournalLine, onlyJournal } from "../../support/journal.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { type Rig, useRigs } from "../../support/scripted.js";
import { until } from "../../support/wait.js";

const startRig = useRigs();

/** config.json's hooks: each event of `events` runs `command`. */
function hooksOf(events: string[], command: string, matcher?: string) {
  return Object.fromEntries(
    events.map((e) => [e, [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command }] }]]),
  );
}

function setHooks(rig: Rig, hooks: Record<string, unknown>): void {
  const file = join(rig.home, "config.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, JSON.stringify({ ...config, hooks }));
}

function lines(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function journal(rig: Rig): JournalLine[] {
  return onlyJournal(rig.home).lines;
}

const ALL = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "Notification",
  "SessionEnd",
];

describe("hooks", () => {
  it("each event runs its hook with the event's JSON on stdin, and each run is journaled", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: hooks": [{ code: 'print(rlm("CHILD: say hi"))' }, echoLastCell],
        "CHILD: say hi": [{ text: "hi from the child" }],
      }),
    });
    const log = join(rig.cwd, "events.jsonl");
    setHooks(rig, hooksOf(ALL, `cat >> '${log}'`));
    const run = await runRelm(["run", "TASK: hooks"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const events = lines(log);
    const names = events.map((e) => e.hook_event_name);
    for (const name of ALL) expect(names, name).toContain(name);
    // The order of a session: start, the prompt, the cell (with the child inside it), stop, end.
    expect(names[0]).toBe("SessionStart");
    expect(names.at(-1)).toBe("SessionEnd");
    expect(names.indexOf("UserPromptSubmit")).toBeLessThan(names.indexOf("PreToolUse"));
    expect(names.indexOf("SubagentStop")).toBeLessThan(names.indexOf("PostToolUse"));
    const id = journal(rig).find((l) => l.type === "header")?.id;
    const byName = (n: string) => events.find((e) => e.hook_event_name === n) as Record<string, unknown>;
    for (const e of events) {
      expect(e.session_id).toBe(id);
      expect(e.cwd).toBe(rig.cwd);
    }
    expect(byName("SessionStart").source).toBe("startup");
    expect(byName("UserPromptSubmit").prompt).toBe("TASK: hooks");
    expect(byName("PreToolUse")).toMatchObject({
      tool_name: "ipython",
      tool_input: { code: 'print(rlm("CHILD: say hi"))' },
    });
    expect(byName("PostToolUse")).toMatchObject({
      tool_name: "ipython",
      tool_response: { status: "ok", output: expect.stringContaining("hi from the child") },
    });
    expect(byName("SubagentStart")).toMatchObject({ task: "CHILD: say hi" });
    expect(byName("SubagentStop")).toMatchObject({ task: "CHILD: say hi", status: "done" });
    expect(byName("Stop")).toMatchObject({ stop_hook_active: false });
    expect(byName("Notification")).toMatchObject({ notification_type: "done" });
    expect(String(byName("Notification").message)).toContain("finished");
    // The root's journal: a hook event per run of the root's hooks, and the notification.
    const hooks = journal(rig).filter((l) => l.type === "hook");
    expect(hooks.map((h) => h.event)).toEqual(
      expect.arrayContaining(["SessionStart", "PreToolUse", "Stop", "Notification", "SessionEnd"]),
    );
    expect(hooks.every((h) => h.exit === 0 && h.source === "user")).toBe(true);
    expect(journal(rig).some((l) => l.type === "notification" && l.kind === "done")).toBe(true);
  });

  it("a UserPromptSubmit hook that exits 2 keeps the message from the model; its stdout adds context", async () => {
    const rig = await startRig("openai", { script: byTask({ "TASK: fine": [{ text: "answered" }] }) });
    const gate = join(rig.cwd, "gate.sh");
    writeFileSync(
      gate,
      "#!/bin/sh\nif grep -q secret ; then echo 'no secrets in prompts' >&2; exit 2; fi\necho 'ticket ABC-12'\n",
      { mode: 0o755 },
    );
    setHooks(rig, hooksOf(["UserPromptSubmit"], gate));
    const blocked = await runRelm(["run", "TASK: the secret is 42"], { env: rig.env, cwd: rig.cwd });
    expect(blocked.stderr).toContain(
      "the message was blocked by a UserPromptSubmit hook: no secrets in prompts",
    );
    expect(rig.model.requests).toHaveLength(0);
    const run = await runRelm(["run", "TASK: fine"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("answered");
    expect(rig.model.requests).toHaveLength(1);
    expect(rig.model.requests[0]?.rawBody).toContain("ticket ABC-12");
  });

  it("PreCompact runs before a compaction: 'auto' when the context window fills, 'manual' for /compact", async () => {
    // The summary request is the one without tools; steps go by call count (a compaction shortens the
    // conversation). Cells print enough that a 4,000-token window compacts once.
    const summary = { text: "## Goal\nTASK: long\n## Progress so far\nPrinted a lot." };
    const steps = [
      ...Array.from({ length: 6 }, (_, i) => ({ code: `print('${"y".repeat(1500)}', ${i})` })),
      { text: "long done" },
    ];
    let step = 0;
    const rig = await startRig(
      "openai",
      {
        script: async (ctx) =>
          (ctx.body as { tools?: unknown }).tools ? (steps[step++] ?? { text: "long done" }) : summary,
      },
      { config: { contextWindows: { scripted: 4000 } } },
    );
    const log = join(rig.cwd, "compact.jsonl");
    setHooks(rig, hooksOf(["PreCompact"], `cat >> '${log}'`));
    const run = await runRelm(["run", "TASK: long"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const auto = lines(log);
    expect(auto.length).toBeGreaterThanOrEqual(1);
    expect(auto[0]).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", cwd: rig.cwd });
    // The hook ran (journaled) before the compaction it announced.
    const order = journal(rig)
      .filter((l) => (l.type === "hook" && l.event === "PreCompact") || l.type === "compaction")
      .map((l) => l.type);
    expect(order.slice(0, 2)).toEqual(["hook", "compaction"]);

    const manual = await startRig("openai", {
      script: async (ctx) =>
        (ctx.body as { tools?: unknown }).tools
          ? byTask({ "TASK: edit": [{ code: "print('lorem ipsum ' * 1500)" }, { text: "edited" }] })(ctx)
          : { text: "## Goal\nedit notes" },
    });
    const manualLog = join(manual.cwd, "compact.jsonl");
    setHooks(manual, hooksOf(["PreCompact"], `cat >> '${manualLog}'`, "manual"));
    const input = ["TASK: edit", "/compact", "/exit", ""].join("\n");
    const line = await runRelm([], { env: manual.env, cwd: manual.cwd, input });
    expect(line.code, line.stderr).toBe(0);
    expect(line.stdout).toMatch(/compacted \d+ messages/);
    expect(lines(manualLog)).toEqual([
      expect.objectContaining({ hook_event_name: "PreCompact", trigger: "manual" }),
    ]);
  });

  it("a PreToolUse hook that exits 2 blocks the cell: the model reads its reason, the cell never ran", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "TASK: clean up": [
          { code: "open('ran.txt', 'w').write('x')  # rm -rf /" },
          (ctx: { lastToolResult?: string }) => ({ text: `saw: ${ctx.lastToolResult ?? ""}` }),
        ],
      }),
    });
    const guard = join(rig.cwd, "guard.sh");
    writeFileSync(
      guard,
      "#!/bin/sh\nif grep -q 'rm -rf' ; then echo 'rm -rf is not allowed here' >&2; exit 2; fi\nexit 0\n",
      { mode: 0o755 },
    );
    setHooks(rig, hooksOf(["PreToolUse"], guard, "ipython"));
    const run = await runRelm(["run", "TASK: clean up"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(rig.cwd, "ran.txt"))).toBe(false);
    expect(run.stdout).toContain("rm -rf is not allowed here");
    const last = rig.model.requests.at(-1)?.rawBody ?? "";
    expect(last).toContain("a PreToolUse hook blocked this cell: rm -rf is not allowed here");
    const hook = journal(rig).find((l) => l.type === "hook");
    expect(hook).toMatchObject({ event: "PreToolUse", exit: 2, blocked: true });
    expect(journal(rig).some((l) => l.type === "cell")).toBe(false);
  });

  it('a matcher "*" (Claude Code\'s for every tool) is taken, and matches every subject', async () => {
    const rig = await startRig("openai", { script: [{ code: "print(1)" }, { text: "done" }] });
    const log = join(rig.cwd, "events.jsonl");
    setHooks(rig, hooksOf(["PreToolUse"], `cat >> '${log}'`, "*"));
    const run = await runRelm(["run", "go"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(lines(log).map((e) => e.tool_name)).toEqual(["ipython"]);
  });

  it("a mistake in the hooks ends the run in one line naming the file and the place, before any request", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const file = join(rig.home, "config.json");
    const events =
      "SessionStart, SessionEnd, UserPromptSubmit, PreToolUse, PostToolUse, PreCompact, SubagentStart, SubagentStop, Stop, Notification";
    const cases: [Record<string, unknown>, string][] = [
      [
        hooksOf(["PreTooluse"], "true"),
        `hooks.PreTooluse is not an event relm runs hooks at; events: ${events}`,
      ],
      [
        hooksOf(["PreToolUse"], "true", "(ipython"),
        'hooks.PreToolUse[0].matcher is not a valid regular expression: "(ipython"',
      ],
      [
        { Stop: [{ hooks: [{ type: "prompt", prompt: "are you done?" }] }] },
        'hooks.Stop[0].hooks[0] must be {"type": "command", "command": "…"} (the only type relm runs)',
      ],
    ];
    for (const [hooks, said] of cases) {
      setHooks(rig, hooks);
      const run = await runRelm(["run", "go"], { env: rig.env, cwd: rig.cwd });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`relm: ${file}: ${said} (docs/hooks.md shows the shape)\n`);
    }
    expect(rig.model.requests).toHaveLength(0);
  });

  it("a Stop hook that always objects sends the agent back at most three times", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: stop": Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i + 1}` })) }),
    });
    setHooks(rig, {
      Stop: [{ hooks: [{ type: "command", command: `echo '{"decision":"block","reason":"not yet"}'` }] }],
    });
    const run = await runRelm(["run", "TASK: stop"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    const lines = journal(rig);
    expect(lines.filter((l) => l.type === "hook" && l.event === "Stop")).toHaveLength(4);
    // Journaled as the hook's turns, not the person's: /rewind does not offer them.
    expect(
      lines.filter((l) => l.type === "user" && l.text === "[Stop hook] not yet" && l.from === "stop_hook"),
    ).toHaveLength(3);
    expect(rig.model.requests).toHaveLength(4);
    expect(run.stdout).toContain("answer 4");
    expect(run.stderr).toContain("a Stop hook asked the agent to go on 4 times in a row");
  });

  it("a hook that fails or hangs is a notice; the session goes on", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: fine": [{ code: "print(6*7)" }, echoLastCell] }),
    });
    setHooks(rig, {
      PreToolUse: [{ hooks: [{ type: "command", command: "echo broken >&2; exit 1" }] }],
      PostToolUse: [{ hooks: [{ type: "command", command: "sleep 30", timeout: 1 }] }],
    });
    const run = await runRelm(["run", "TASK: fine"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("42");
    expect(run.stderr).toContain(
      "PreToolUse hook `echo broken >&2; exit 1` (config.json) failed: exit 1: broken",
    );
    expect(run.stderr).toContain("PostToolUse hook `sleep 30` (config.json) failed: ran out of time");
    expect(journal(rig).find((l) => l.type === "hook" && l.event === "PostToolUse")).toMatchObject({
      exit: null,
      timedOut: true,
    });
  });

  it("a detached session's finished work fires the Notification hook", async () => {
    const rig = await startRig("openai", {
      script: byTask({ "TASK: background": [{ code: "print('bg')" }, echoLastCell] }),
    });
    const notes = join(rig.cwd, "notes.jsonl");
    setHooks(rig, hooksOf(["Notification"], `cat >> '${notes}'`));
    try {
      const run = await runRelm(["run", "--detach", "TASK: background"], { env: rig.env, cwd: rig.cwd });
      expect(run.code, run.stderr).toBe(0);
      const note = await until(() => lines(notes)[0], 60_000);
      expect(note).toMatchObject({ hook_event_name: "Notification", notification_type: "done" });
      expect(String(note.message)).toContain("TASK: background");
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });
});
