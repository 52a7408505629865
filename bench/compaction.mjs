// Compaction on synthetic long conversations against the scripted model: prompt size before and after,
// and a scripted long run that compacts whenever the prompt reaches 80% of a 32k window.
// Run after `npm run build`: node bench/compaction.mjs
import { join } from "node:path";
import { ROOT, table } from "./lib.mjs";

const { compactMessages, needsCompaction } = await import(join(ROOT, "dist/agent/compaction/messages.js"));
const { createModelClient, collectResponse } = await import(join(ROOT, "dist/llm/index.js"));
const { startScriptedModel } = await import(join(ROOT, "dist/scripted/index.js"));

const GOAL =
  "Port the CSV importer in src/importer.py to streaming and keep every test in tests/ passing (GOAL-MARK)";
const SUMMARY = `## Goal\n${GOAL}\n\n## Progress so far\n${"- step done, with file names and numbers\n".repeat(30)}`;
const SYSTEM = "You are relm, an agent working in a persistent IPython kernel.".repeat(20);
const TOOLS = [
  {
    name: "ipython",
    description: "Run Python in the kernel.",
    parameters: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
  },
];

// Deterministic sizes: outputs vary between short prints and long tracebacks, like a real session.
function turn(i) {
  const output = `out-${i} ${"x".repeat(300 + ((i * 7919) % 2500))}`;
  return [
    {
      role: "assistant",
      text: `Turn ${i}: checking the importer. ${"why ".repeat(20)}`,
      toolCalls: [
        {
          id: `call_${i}`,
          name: "ipython",
          arguments: JSON.stringify({ code: `# ${i}\n${"x = 1\n".repeat(40)}` }),
        },
      ],
    },
    { role: "tool", toolCallId: `call_${i}`, content: [{ type: "text", text: output }] },
  ];
}

function conversation(n) {
  const messages = [{ role: "user", content: [{ type: "text", text: GOAL }] }];
  for (let i = 1; i <= n; i++) messages.push(...turn(i));
  return messages;
}

const model = await startScriptedModel({
  script: (ctx) =>
    ctx.rawBody.includes("Transcript of the earlier turns") ? { text: SUMMARY } : { text: "ok" },
});
const client = createModelClient({
  provider: "openai",
  baseUrl: model.openaiBaseUrl,
  model: "scripted",
  stream: true,
});

async function promptBytes(messages) {
  const r = await collectResponse(client.stream({ system: SYSTEM, messages, tools: TOOLS }));
  if ("error" in r) throw new Error(r.error.message);
  return r.requestBytes;
}

const rows = [];
for (const n of [10, 25, 50, 100, 200]) {
  const messages = conversation(n);
  const before = await promptBytes(messages);
  const result = await compactMessages({
    client,
    messages,
    liveVariables: ["df", "rows", "reader"],
    filesTouched: ["src/importer.py", "tests/test_importer.py"],
    window: 128_000,
  });
  if ("error" in result) throw new Error(result.error);
  const summaryRequest = model.requests.at(-1).rawBody.length;
  const after = await promptBytes(result.messages);
  rows.push({
    turns: n,
    "prompt before": `${(before / 1024).toFixed(1)} KB`,
    "prompt after": `${(after / 1024).toFixed(1)} KB`,
    ratio: `${(before / after).toFixed(1)}x`,
    "est. tokens before → after": `${result.tokensBefore} → ${result.tokensAfter}`,
    "summary request": `${(summaryRequest / 1024).toFixed(1)} KB`,
    "goal kept": model.requests.at(-1).rawBody.includes("GOAL-MARK") ? "yes" : "NO",
  });
}
console.log("One compaction (keep the last 2 turns, window 128k):");
table(rows);

// A scripted long run: 300 turns, compacting whenever the last prompt reached 80% of a 32k window.
const WINDOW = 32_768;
let messages = conversation(0);
let peak = 0;
const afterSizes = [];
let compactions = 0;
let goalEverywhere = true;
for (let i = 1; i <= 300; i++) {
  messages.push(...turn(i));
  const bytes = await promptBytes(messages);
  goalEverywhere &&= model.requests.at(-1).rawBody.includes("GOAL-MARK");
  const tokens = Math.ceil(bytes / 4); // what the scripted model reports as input tokens
  peak = Math.max(peak, tokens);
  if (needsCompaction(tokens, WINDOW)) {
    const result = await compactMessages({
      client,
      messages,
      liveVariables: ["df"],
      filesTouched: [],
      window: WINDOW,
    });
    if ("error" in result) throw new Error(result.error);
    messages = result.messages;
    compactions++;
    afterSizes.push(Math.ceil((await promptBytes(messages)) / 4));
  }
}
console.log(`\nScripted long run: 300 turns, window ${WINDOW} tokens, threshold 0.8:`);
table([
  {
    compactions,
    "peak prompt (tokens)": peak,
    "prompt right after compaction (tokens, median)": afterSizes.sort((a, b) => a - b)[
      afterSizes.length >> 1
    ],
    "goal in every request": goalEverywhere ? "yes" : "NO",
  },
]);
await model.close();
