import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig } from "../config/config.js";
import { describeRefinement, proposeRefinement } from "../learning/refine/refine.js";
import { createModelClient } from "../llm/index.js";
import { byTask, type ScriptStep, startScriptedModel } from "../scripted/index.js";
import { JOURNAL_FILE, sessionDir } from "../session/index.js";
import { type RunIo, runOnce } from "./run.js";

const ENDPOINTS = ["/api/login", "/api/orders", "/api/search", "/api/cart", "/api/profile", "/health"];
const LEVELS = ["INFO", "INFO", "INFO", "INFO", "WARN", "ERROR"];

/** A reproducible web-server log (seeded), big enough that pasting it into a prompt would be wasteful. */
function demoLog(lines = 5000): string {
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const t = new Date(Date.UTC(2026, 10, 30, 0, 0, i * 7)).toISOString();
    // Skew errors towards one endpoint so the answer is a real finding, not a tie.
    const endpoint = ENDPOINTS[Math.floor(next() * ENDPOINTS.length)] as string;
    let level = LEVELS[Math.floor(next() * LEVELS.length)] as string;
    if (endpoint === "/api/orders" && next() < 0.25) level = "ERROR";
    const ms = Math.floor(next() * 900) + 5;
    out.push(`${t} ${level} ${endpoint} ${level === "ERROR" ? 500 : 200} ${ms}ms`);
  }
  return `${out.join("\n")}\n`;
}

const TASK = "Which endpoint in the server log `log` has the most errors, and how slow are the worst ones?";
const CHILD_TASK = "Measure the latency of the endpoint `item` in the server log `log`.";

const INSPECT = `print(type(log).__name__, f"{len(log):,} chars")
print(log[:200])`;

const COUNT = `import re, collections
errors = collections.Counter(m.group(1) for m in re.finditer(r" ERROR (\\S+) ", log))
lines = log.count("\\n")
print(f"{sum(errors.values())} errors in {lines} lines")
errors.most_common(3)`;

// Three sub-agents, one per endpoint, each with the log as a variable in its own kernel.
const FAN_OUT = `worst = [endpoint for endpoint, _ in errors.most_common(3)]
latency = rlm.map("${CHILD_TASK}", worst, log=log)
for row in latency:
    print(row)`;

const CHILD_MEASURE = `import re
ms = sorted(int(m.group(1)) for m in re.finditer(rf" {re.escape(item)} \\d+ (\\d+)ms", log))
submit({"endpoint": item, "requests": len(ms), "p95_ms": ms[int(len(ms) * 0.95)]})`;

const SHELL = "!wc -l demo-server.log && grep -c ERROR demo-server.log";

/** The final answer is written from what the real kernels printed, not from a canned string. */
function answerFrom(counts: string | undefined, latency: string | undefined): ScriptStep {
  const top = [...(counts ?? "").matchAll(/\('([^']+)', (\d+)\)/g)].map((m) => `${m[1]} (${m[2]})`);
  const total = /(\d+) errors in (\d+) lines/.exec(counts ?? "");
  const p95 = [...(latency ?? "").matchAll(/'endpoint': '([^']+)', 'requests': (\d+), 'p95_ms': (\d+)/g)].map(
    (m) => `${m[1]} ${m[3]} ms over ${m[2]} requests`,
  );
  if (top.length === 0 || !total || p95.length === 0) {
    return { text: `I could not read the kernels' output:\n${counts}\n${latency}` };
  }
  return {
    text:
      `${top[0]?.replace(/ \((\d+)\)/, " has the most errors: $1")}.\n` +
      `The log has ${total[1]} errors in ${total[2]} lines; the top three endpoints are ${top.join(", ")}.\n` +
      `Their 95th-percentile latencies, measured by three sub-agents: ${p95.join("; ")}.`,
  };
}

/**
 * The scripted reviewer: cites the cell that counted the errors and quotes its output; then (to show the
 * check) a claim that cites the task but quotes words the task does not contain.
 */
function refineAnswer(request: string): string {
  const counted = /\[(\d+)\] output \(ok\):\n\s+(\d+ errors in \d+ lines)/.exec(request);
  const task = /^\[(\d+)\] user: /m.exec(request)?.[1];
  const edits = [
    {
      op: "add",
      kind: "memory",
      title: "Counting errors in server logs",
      content:
        "Count ERROR lines per endpoint with one regex over the log variable; never print the log itself.",
      evidence: counted ? [Number(counted[1])] : [],
      quote: counted?.[2] ?? "",
      reason: "the count took one cell and printed only the totals",
      hypothesis: "log questions take one counting cell, and the log is never printed",
    },
    {
      op: "add",
      kind: "memory",
      title: "Unchecked claim",
      content: "The orders service is always the slowest.",
      evidence: task ? [Number(task)] : [],
      quote: "the orders service is always the slowest",
      reason: "a claim the cited event does not support",
      hypothesis: "latency questions are answered faster",
    },
  ];
  return JSON.stringify(edits);
}

/** The scripted relevance check: every edit it is asked about is supported by its quote. */
function relevanceAnswer(request: string): string {
  const count = request.match(/^## Edit \d+$/gm)?.length ?? 0;
  const answers = Array.from({ length: count }, (_, i) => ({
    edit: i + 1,
    supports: "yes",
    why: "the quoted output is the count the lesson describes",
  }));
  return JSON.stringify(answers);
}

export async function runDemo(flags: { json?: boolean }, io: RunIo): Promise<number> {
  const workdir = mkdtempSync(join(tmpdir(), "relm-demo-"));
  const logPath = join(workdir, "demo-server.log");
  writeFileSync(logPath, demoLog());
  let counts: string | undefined;
  let latency: string | undefined;
  const model = await startScriptedModel({
    script: byTask({
      // First: the review's request quotes the whole trajectory, the task included.
      // The review after the work: one lesson with real evidence, one whose quote the cited event lacks.
      "Propose harness edits": [(ctx) => ({ text: refineAnswer(ctx.lastUserText ?? "") })],
      // Then the relevance check of the lesson that passed the mechanical checks: its quote supports it.
      "Check whether the evidence": [(ctx) => ({ text: relevanceAnswer(ctx.lastUserText ?? "") })],
      [TASK]: [
        { text: "The log is in the variable `log`; I'll look at its shape first.", code: INSPECT },
        { text: "Now I'll count errors per endpoint in Python, without printing the log.", code: COUNT },
        (ctx) => {
          counts = ctx.lastToolResult;
          return { text: "I'll ask one sub-agent per endpoint for its latency, in parallel.", code: FAN_OUT };
        },
        (ctx) => {
          latency = ctx.lastToolResult;
          return { text: "Cross-checking the error count with the shell:", code: SHELL };
        },
        () => answerFrom(counts, latency),
      ],
      [CHILD_TASK]: [{ text: "I'll measure it from the log in my kernel.", code: CHILD_MEASURE }],
    }),
  });
  try {
    const config = resolveConfig(io.env, {});
    const clientOptions = {
      provider: "openai" as const,
      baseUrl: model.openaiBaseUrl,
      model: "relm-demo",
      retryBaseMs: 50,
    };
    if (!flags.json) {
      io.stderr.write(
        `relm demo: a scripted model on ${model.url} drives real Python kernels and sub-agents (no API key).\n`,
      );
    }
    let session: string | undefined;
    const code = await runOnce(
      TASK,
      { json: flags.json, var: [`log=@${logPath}`] },
      { ...io, cwd: workdir },
      { clientOptions, config },
      (id) => {
        session = id;
      },
    );
    if (code !== 0 || flags.json || !session) return code;
    io.stdout.write(
      `\n$ relm refine ${session} --dry-run   # what this session taught, checked against its journal\n`,
    );
    const ref = await proposeRefinement({
      journalPath: join(sessionDir(config.home, session), JOURNAL_FILE),
      ctx: { cwd: workdir, home: config.home, sessionDir: sessionDir(config.home, session) },
      scope: "session",
      client: createModelClient(clientOptions),
    });
    io.stdout.write(`${describeRefinement(ref)}\ndry run: nothing was written\n`);
    io.stdout.write(nextSteps(config.model.model));
    return code;
  } finally {
    await model.close();
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** What to do after the demo: sign in (unless a model is configured), then relm in a project. */
function nextSteps(model: string | undefined): string {
  const login = model
    ? `  relm login             change the provider or model (now ${model})\n`
    : "  relm login             choose a provider, key and model (or relm login claude | chatgpt | copilot)\n";
  return `\nNext:\n${login}  cd your-project && relm  the full-screen UI there (relm "task" starts it with a task)\n`;
}
