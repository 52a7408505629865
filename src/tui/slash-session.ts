// Slash commands about the session itself: help, login and model, sessions (resume, new, attach,
// detach, quit), export, spend and the agent panel.
import { dirname, resolve } from "node:path";
import { listSessions } from "../host/discovery.js";
import { listModels } from "../llm/models.js";
import type { Provider } from "../llm/types.js";
import {
  EXPORT_FORMATS,
  type ExportFormat,
  resolveSessionId,
  sessionDir,
  sessionsDir,
  writeExport,
} from "../session/index.js";
import { formatTokens } from "./agent-panel.js";
import type { AppApi, CommandSpec } from "./app-api.js";
import { pickFrom, showText } from "./dialogs.js";
import { ago, money } from "./format.js";
import { budgetLeft, contextPercent } from "./status-bar.js";

/** This directory's sessions, newest first, as picker items. */
export async function pickSession(
  api: AppApi,
  title = "Resume a session of this directory",
): Promise<string | undefined> {
  const sessions = (await listSessions(api.home)).filter((s) => s.cwd === api.cwd);
  if (sessions.length === 0) {
    api.note(api.theme.dim("no saved sessions in this directory yet"));
    return undefined;
  }
  return pickFrom(api.dialogs, {
    title,
    items: sessions.map((s) => ({
      value: s.id,
      label: s.title || "(untitled)",
      description: `${s.live ? "● " : ""}${s.status} · ${ago(s.lastActivity)} · ${formatTokens(s.tokens)} tok${s.cost === null ? " · unpriced" : ` · ${money(s.cost)}`} · ${s.id}`,
    })),
    filterable: true,
  });
}

async function chooseModel(api: AppApi, args: string[]): Promise<void> {
  let name = args[0];
  if (!name) {
    const { provider, baseUrl, apiKey } = api.configured;
    const listed = await listModels(provider as Provider, baseUrl, apiKey);
    if ("error" in listed) {
      api.note(api.theme.warn(`could not list models: ${listed.error}; type /model NAME`));
      return;
    }
    const current = api.info?.model ?? api.pending.model ?? api.configured.model;
    name = await pickFrom(api.dialogs, {
      title: "Model for the next turn",
      items: listed.ids.map((id) => ({
        value: id,
        label: id,
        description: id === current ? "current" : undefined,
      })),
      initial: current,
      filterable: true,
    });
    if (!name) return;
  }
  if (api.link.id) {
    if (!(await api.ensureLive())) return;
    const result = await api.link.call("model", { name });
    api.note(api.theme.accent(`⇄ model for the next turn: ${result.model}`));
    api.refreshInfo();
  } else {
    api.pending.model = name;
    api.note(api.theme.accent(`⇄ model: ${name} (the session starts with it)`));
  }
  api.tui.requestRender();
}

async function exportCommand(api: AppApi, args: string[]): Promise<void> {
  const id = api.link.id;
  if (!id) {
    api.note(api.theme.dim("nothing to export yet"));
    return;
  }
  const format = (args[0] ?? "md") as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) {
    api.note(api.theme.warn(`usage: /export [${EXPORT_FORMATS.join("|")}] [FILE]`));
    return;
  }
  const file = resolve(api.cwd, args[1] ?? `relm-${id}.${format}`);
  const [, ...images] = await writeExport(sessionDir(api.home, id), format, file);
  const beside =
    images.length > 0 ? ` (and ${images.length} image(s) in ${dirname(images[0] as string)})` : "";
  api.note(api.theme.ok(`✓ wrote ${file}${beside}`));
}

function costText(api: AppApi): string[] {
  const info = api.info;
  if (!info) return ["Nothing spent yet: the session starts with your first message."];
  const u = info.usage;
  const lines = [
    `model        ${info.model} via ${info.provider}`,
    `context      ${formatTokens(info.contextTokens)} of ${formatTokens(info.contextWindow)} tokens (${contextPercent(info)}%; compaction near 80%)`,
    `input        ${u.input.toLocaleString("en-US")} tokens (${u.cached.toLocaleString("en-US")} from the prompt cache, ${u.cacheWrite.toLocaleString("en-US")} written to it)`,
    `output       ${u.output.toLocaleString("en-US")} tokens`,
    `model calls  ${info.spent.turns} by the main agent (tokens and cost above include the sub-agents')`,
    `cost         ${info.cost === null ? "unpriced (add the model's prices to config.json to see it)" : money(info.cost)}`,
  ];
  const left = budgetLeft(info);
  lines.push(`budgets      ${left ?? "none set (--max-turns, --max-tokens, --max-time, --max-cost)"}`);
  const nodes = api.agents.flatten();
  if (nodes.length > 0) {
    lines.push("", "sub-agents (included above):");
    const names = nodes.map(({ node, depth }) => `${"  ".repeat(depth)}${node.label}`);
    const width = Math.max(...names.map((n) => n.length));
    nodes.forEach(({ node }, i) => {
      const spend = `${formatTokens(node.tokens).padStart(6)} tok${node.cost === null ? "" : `  ${money(node.cost)}`}`;
      lines.push(`  ${(names[i] as string).padEnd(width)}  ${node.status.padEnd(9)}  ${spend}`);
    });
  }
  return lines;
}

export function sessionCommands(): CommandSpec[] {
  return [
    { name: "help", description: "commands and keys", run: (api) => api.showHelp() },
    {
      name: "login",
      description: "choose the provider, key and model (saved 0600)",
      run: (api) => api.login(),
    },
    {
      name: "search-setup",
      description: "choose the web search provider and key for search() (saved 0600)",
      run: async (api) => (await import("./login-search.js")).searchSetupInSession(api),
    },
    {
      name: "model",
      args: "[NAME]",
      description: "switch the model for the next turn (a list when no name)",
      run: chooseModel,
    },
    {
      name: "resume",
      args: "[ID]",
      description: "open a saved session of this directory",
      run: async (api, args) => {
        const id = args[0] ? resolveSessionId(sessionsDir(api.home), args[0]) : await pickSession(api);
        if (id) await api.openSession(id);
      },
    },
    {
      name: "new",
      description: "start a new session (this one is saved)",
      run: (api) => api.newSession(false),
    },
    {
      name: "clear",
      description: "clear the screen and start a new session",
      run: (api) => api.newSession(true),
    },
    {
      name: "attach",
      args: "ID",
      description: "open another session (running or saved) by id or prefix",
      run: async (api, args) => {
        if (!args[0]) {
          api.note(
            api.theme.warn(
              "usage: /attach ID   (relm agents lists them; /resume picks one of this directory)",
            ),
          );
          return;
        }
        await api.openSession(resolveSessionId(sessionsDir(api.home), args[0]));
      },
    },
    {
      name: "detach",
      description: "leave; the session keeps running in the background (also ctrl+b)",
      run: (api) => api.detach(),
    },
    {
      name: "quit",
      description: "stop the session and leave (also ctrl+d; /exit)",
      run: (api) => api.quit(),
    },
    {
      name: "export",
      args: "[md|html|ipynb|jsonl] [FILE]",
      description: "write the session to a file",
      run: exportCommand,
    },
    {
      name: "cost",
      description: "tokens, cost, context and budgets in detail",
      run: (api) => showText(api.dialogs, "Spend", () => costText(api)),
    },
    {
      name: "agents",
      description: "select a sub-agent: open its transcript, message or cancel it",
      run: (api) => api.focusAgents(),
    },
    {
      name: "expand",
      args: "[on|off]",
      description: "show cell outputs in full (ctrl+o toggles)",
      run: (api, args) => api.setExpanded(args[0] !== "off"),
    },
  ];
}
