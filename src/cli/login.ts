import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createInterface, type Interface } from "node:readline";
import {
  type ConfigFile,
  type ConfigFlags,
  DEFAULT_BASE_URL,
  readConfigFile,
  relmHomeFrom,
} from "../config/config.js";
import { UsageError } from "../config/errors.js";
import type { Provider } from "../llm/types.js";
import { EXIT } from "./exit-codes.js";
import type { RunIo } from "./run.js";

const PRESETS: { name: string; provider: Provider; baseUrl: string; needsKey: boolean }[] = [
  { name: "Ollama (local)", provider: "openai", baseUrl: "http://localhost:11434/v1", needsKey: false },
  { name: "LM Studio (local)", provider: "openai", baseUrl: "http://localhost:1234/v1", needsKey: false },
  { name: "vLLM (local)", provider: "openai", baseUrl: "http://localhost:8000/v1", needsKey: false },
  { name: "OpenAI", provider: "openai", baseUrl: DEFAULT_BASE_URL.openai, needsKey: true },
  { name: "Anthropic", provider: "anthropic", baseUrl: DEFAULT_BASE_URL.anthropic, needsKey: true },
  { name: "OpenRouter", provider: "openai", baseUrl: "https://openrouter.ai/api/v1", needsKey: true },
];

function ask(rl: Interface, question: string, fallback?: string): Promise<string> {
  const suffix = fallback ? ` [${fallback}]` : "";
  return new Promise((resolve) =>
    rl.question(`${question}${suffix}: `, (a) => resolve(a.trim() || fallback || "")),
  );
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

/** Writes provider, endpoint, model and key to $RELM_HOME/config.json, readable by the user only. */
export async function login(flags: ConfigFlags & { apiKeyStdin?: boolean }, io: RunIo): Promise<number> {
  const home = relmHomeFrom(io.env);
  const path = `${home}/config.json`;
  const existing: ConfigFile = readConfigFile(path) ?? {};
  const next: ConfigFile = { ...existing };
  const scripted = flags.apiKeyStdin || !process.stdin.isTTY;

  if (scripted) {
    if (!flags.model)
      throw new UsageError("relm login without a terminal needs --model (and --provider, --base-url)");
    next.provider = (flags.provider as Provider | undefined) ?? existing.provider ?? "openai";
    next.baseUrl = flags.baseUrl ?? existing.baseUrl ?? DEFAULT_BASE_URL[next.provider];
    next.model = flags.model;
    if (flags.apiKeyStdin) next.apiKey = await readStdin();
  } else {
    const rl = createInterface({ input: process.stdin, output: io.stdout as NodeJS.WriteStream });
    try {
      for (const [i, p] of PRESETS.entries()) io.stdout.write(`  ${i + 1}. ${p.name}  ${p.baseUrl}\n`);
      const answer = await ask(rl, "Endpoint (a number, or an OpenAI-compatible base URL)", "1");
      const preset = PRESETS[Number(answer) - 1];
      const typedUrl = /^https?:\/\//.test(answer) ? answer : undefined;
      next.provider = (flags.provider as Provider | undefined) ?? preset?.provider ?? "openai";
      next.baseUrl = flags.baseUrl ?? preset?.baseUrl ?? typedUrl ?? (await ask(rl, "Base URL"));
      next.model = flags.model ?? (await ask(rl, "Model", existing.model));
      if (preset?.needsKey ?? true) {
        const key = await ask(rl, "API key (leave empty to keep the current one or use the environment)");
        if (key) next.apiKey = key;
      }
    } finally {
      rl.close();
    }
  }
  if (!next.model) throw new UsageError("a model name is required");
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  io.stdout.write(
    `saved ${path} (${next.model} via ${next.provider} at ${next.baseUrl}); check it with \`relm doctor\`\n`,
  );
  return EXIT.done;
}
