// Slash commands about the session itself: help, login and model, sessions (resume, new, attach,
// detach, quit), export, spend and the agent panel.

import { dirname, resolve } from "node:path";
import type { OwnCommands } from "../commands/run.js";
import { listSessions } from "../host/states/discovery.js";
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
import type { AppApi } from "./app-api.js";
import { copyLastAnswer } from "./clipboard.js";
import { pickFrom, showText } from "./dialogs/dialogs.js";
import { ago, costWord, formatTokens } from "./format.js";
import { detachAsked } from "./leave.js";
import { budgetLeft, contextPercent } from "./status-bar.js";
import { themeCommand } from "./theme-choice.js";
import { webAddress } from "./web-server.js";

/** This directory's sessions, newest first, as picker items. */
export async function pickSession(api: AppApi): Promise<string | undefined> {
  const sessions = (await listSessions(api.home)).filter((s) => s.cwd === api.cwd);
  if (sessions.length === 0) {
    api.note(api.theme.dim("no saved sessions in this directory yet"));
    return undefined;
  }
  return pickFrom(api.dialogs, {
    title: "Resume a session of this directory",
    items: sessions.map((s) => ({
      value: s.id,
      label: s.title || "(untitled)",
      description: `${s.live ? "● " : ""}${s.status} · ${ago(s.lastActivity)} · ${formatTokens(s.tokens)} tok · ${costWord(s.cost)} · ${s.id}`,
    })),
    filterable: true,
  });
}

/** The UI's list of the endpoint's models for /model without a name (the table's /model switches). */
export async function pickModel(api: AppApi): Promise<string | undefined> {
  const { provider, baseUrl, apiKey, preset } = api.configured;
  const listed = await listModels(provider as Provider, baseUrl, apiKey, { preset });
  if ("error" in listed) {
    api.note(api.theme.warn(`could not list models: ${listed.error}; type /model NAME`));
    return undefined;
  }
  const current = api.info?.model ?? api.pending.model ?? api.configured.model;
  return pickFrom(api.dialogs, {
    title: "Model for the next turn",
    items: listed.ids.map((id) => ({
      value: id,
      label: id,
      description: id === current ? "current" : undefined,
    })),
    initial: current,
    filterable: true,
  });
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
    `cost         ${costWord(info.cost)}${info.cost === null ? " (add the model's prices to config.json to see it)" : ""}`,
  ];
  const left = budgetLeft(info);
  lines.push(`budgets      ${left ?? "none set (--max-turns, --max-tokens, --max-time, --max-cost)"}`);
  const nodes = api.agents.flatten();
  if (nodes.length > 0) {
    lines.push("", "sub-agents (included above):");
    const names = nodes.map(({ node, depth }) => `${"  ".repeat(depth)}${node.label}`);
    const width = Math.max(...names.map((n) => n.length));
    nodes.forEach(({ node }, i) => {
      const spend = `${formatTokens(node.tokens).padStart(6)} tok  ${costWord(node.cost)}`;
      lines.push(`  ${(names[i] as string).padEnd(width)}  ${node.status.padEnd(9)}  ${spend}`);
    });
  }
  return lines;
}

/** /web: the address of relm web, at this session's page once there is a session. */
async function webCommand(api: AppApi): Promise<void> {
  try {
    const { url, started } = await webAddress(api.home, api.env);
    const id = api.link.id;
    api.note(
      api.theme.ok(
        `${started ? "✓ started relm web" : "relm web is running"}: ${id ? `${url}#/s/${id}` : url}`,
      ),
    );
    api.note(api.theme.dim("  (the address holds its token: keep it to yourself; docs/web.md says more)"));
  } catch (error) {
    api.note(api.theme.warn(`could not start relm web: ${(error as Error).message}`));
  }
}

/** The commands the UI does itself, on its own screen and sessions (their entries are in src/commands/). */
export function uiOwnCommands(api: AppApi): OwnCommands {
  return {
    help: () => api.showHelp(),
    login: () => api.login(),
    "search-setup": async () => (await import("./dialogs/login-search.js")).searchSetupInSession(api),
    resume: async ([prefix]) => {
      const id = prefix ? resolveSessionId(sessionsDir(api.home), prefix) : await pickSession(api);
      if (id) await api.openSession(id);
    },
    new: () => api.newSession(false),
    clear: () => api.newSession(true),
    attach: async ([prefix]) => {
      if (!prefix) {
        api.note(
          api.theme.warn("usage: /attach ID   (relm agents lists them; /resume picks one of this directory)"),
        );
        return;
      }
      await api.openSession(resolveSessionId(sessionsDir(api.home), prefix));
    },
    detach: () => detachAsked(api),
    quit: () => api.quit(),
    export: (args) => exportCommand(api, args),
    // The UI's own: with the sub-agents of its panel, and before the session starts too.
    cost: () => showText(api.dialogs, "Spend", () => costText(api)),
    agents: () => api.focusAgents(),
    expand: ([mode]) => {
      // Anything but on or off is a mistake to say, not a silent "on".
      if (mode !== undefined && mode !== "on" && mode !== "off") {
        api.note(api.theme.warn(`usage: /expand [on|off] (not ${JSON.stringify(mode)})`));
        return;
      }
      api.setExpanded(mode !== "off");
    },
    copy: () => copyLastAnswer(api, api.lastAnswer),
    theme: ([name]) => themeCommand(api, name),
    web: () => webCommand(api),
  };
}
