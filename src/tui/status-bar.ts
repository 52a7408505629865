// The status line under the input: model and provider, context used, tokens and cost, budget left,
// kernel state, the permission mode, goal and autonomy, session id, directory and branch; and a line of
// its own when the mode is full because this machine cannot sandbox. Figures come from the host's
// `info` answer (the journal's own numbers), refreshed as the session works.
import { homedir } from "node:os";
import { type Component, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";
import { formatDuration } from "../config/duration.js";
import type { PermissionMode } from "../config/permission-mode.js";
import { costWord, formatTokens } from "./format.js";
import type { LinkState, SessionInfo } from "./session-link.js";
import type { Theme } from "./theme.js";

interface StatusData {
  info: SessionInfo | undefined;
  /** Model and provider from the configuration, before any session exists. */
  model: string;
  provider: string;
  cwd: string;
  branch: string | null;
  link: LinkState;
  /** The session shown, before (or without) its host's figures. */
  sessionId?: string;
  /** The kernel's state as the UI last saw it in events (fresher than the host's last answer). */
  kernel?: SessionInfo["kernel"];
  /** Goal and autonomy chosen before the first message (sent with it). */
  pendingGoal?: string;
  pendingGates?: string[] | null;
  /** The root kernel's variables a release would lose (its last snapshot's skipped ones). */
  unsaved?: string[];
  /** Lessons this session learned, and (once counted) those on probation. */
  learning?: { learned: number; probation?: number };
  /** The permission mode: the host's, else the one the session will start in. */
  mode?: PermissionMode;
  /** Why the mode is full without being asked for (no sandbox here) and how to get one: a line of its own. */
  modeWarning?: string;
}

function shortPath(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** What is left of each budget that is set, e.g. "budget 7 turns · 12k tok · $1.40 · 12m left". */
export function budgetLeft(info: SessionInfo): string | undefined {
  const { limits, spent } = info;
  const parts: string[] = [];
  if (limits.maxTurns !== undefined) parts.push(`${Math.max(0, limits.maxTurns - spent.turns)} turns`);
  if (limits.maxTokens !== undefined)
    parts.push(`${formatTokens(Math.max(0, limits.maxTokens - spent.tokens))} tok`);
  if (limits.maxCost !== undefined) {
    const left = Math.max(0, limits.maxCost - (spent.cost ?? 0));
    // Enough decimals that a small spend shows against a small budget ($1.997, not $2.00).
    parts.push(left >= 10 ? `$${left.toFixed(2)}` : `$${left.toFixed(3)}`);
  }
  if (limits.maxTimeMs !== undefined)
    parts.push(formatDuration(Math.max(0, limits.maxTimeMs - spent.elapsedMs)));
  return parts.length > 0 ? `budget ${parts.join(" · ")} left` : undefined;
}

export function contextPercent(info: SessionInfo): number {
  if (info.contextWindow <= 0) return 0;
  return Math.round((100 * info.contextTokens) / info.contextWindow);
}

export function statusLines(d: StatusData, width: number, t: Theme): string[] {
  const sep = t.dim(" │ ");
  const info = d.info;
  const model = info?.model ?? d.model;
  const first: string[] = [
    model ? `${t.c.bold(model)} ${t.dim(`via ${info?.provider ?? d.provider}`)}` : t.warn("no model: /login"),
  ];
  if (info) {
    const pct = contextPercent(info);
    const ctx = `ctx ${pct}%`;
    first.push(pct >= 80 ? t.warn(ctx) : pct >= 60 ? t.c.yellowBright(ctx) : ctx);
    const u = info.usage;
    first.push(`↑${formatTokens(u.input)} ↓${formatTokens(u.output)}${cacheNote(u, t)}`);
    first.push(info.cost === null ? t.dim(costWord(null)) : costWord(info.cost));
    const left = budgetLeft(info);
    if (left) first.push(left);
    // No host, no kernel: what it was doing when the host went away is over.
    const k = d.link === "offline" ? "stopped" : (d.kernel ?? info.kernel);
    first.push(`kernel ${k === "busy" ? t.accent(k) : k === "restarting" ? t.warn(k) : k}`);
    if (d.unsaved?.length) first.push(t.warn(unsavedPart(d.unsaved)));
  } else {
    first.push(
      t.dim(d.link === "starting" ? "starting…" : d.link === "offline" ? "saved session" : "new session"),
    );
  }
  const second: string[] = [];
  if (d.mode) second.push(modePart(d.mode, d.modeWarning !== undefined, t));
  const goal = info?.goal ?? d.pendingGoal;
  if (goal) second.push(t.accent(`◎ ${goal}`));
  const gates = info ? info.autonomy?.gates : d.pendingGates === null ? undefined : d.pendingGates;
  if (gates)
    second.push(
      t.accent(
        `autonomous${gates.length > 0 ? ` (${gates.length} gate${gates.length === 1 ? "" : "s"})` : ""}`,
      ),
    );
  const learning = learningPart(d.learning);
  if (learning) second.push(t.accent(learning));
  if (d.link === "offline") second.push(t.warn("not running: your next message resumes it"));
  const id = info?.id ?? d.sessionId;
  if (id) second.push(t.dim(id));
  const branch = info?.branch ?? d.branch;
  second.push(t.dim(`${shortPath(info?.cwd ?? d.cwd)}${branch ? ` (${branch})` : ""}`));
  const lines = [joinFitting(first, sep, width), joinFitting(second, sep, width)];
  if (d.modeWarning) lines.push(truncateToWidth(t.warn(`⚠ ${d.modeWarning}`), width));
  return lines;
}

/** "2 vars won't survive (big, rows)": named, the first few, so the person knows which to save. */
function unsavedPart(names: string[]): string {
  const shown = names.slice(0, 3).join(", ") + (names.length > 3 ? ", …" : "");
  return `${names.length === 1 ? "1 var" : `${names.length} vars`} won't survive (${shown})`;
}

/**
 * "⊡ workspace": the mode, coloured by how much it lets code do; shift+tab changes it. The glyph is
 * outside the ranges where pi-tui's width check tries its emoji pattern: the first such glyph on
 * screen compiles that pattern, 20-30 ms of CPU the first paint would wait for (⛨ did).
 */
function modePart(mode: PermissionMode, warned: boolean, t: Theme): string {
  if (mode === "plan") return t.accent("⊡ plan (read-only)");
  if (mode === "workspace") return t.ok("⊡ workspace");
  return warned ? t.warn("⚠ full (no sandbox)") : t.warn("full access");
}

/** "learned 1 · on probation 3"; nothing before anything is learned or on probation. */
function learningPart(l: StatusData["learning"]): string | undefined {
  if (!l) return undefined;
  const parts: string[] = [];
  if (l.learned > 0) parts.push(`learned ${l.learned}`);
  if (l.probation) parts.push(`on probation ${l.probation}`);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** Joins parts with the separator, dropping parts from the end that do not fit. */
function joinFitting(parts: string[], sep: string, width: number): string {
  let line = "";
  for (const part of parts) {
    const next = line ? `${line}${sep}${part}` : part;
    if (visibleWidth(next) > width) break;
    line = next;
  }
  return truncateToWidth(line || (parts[0] ?? ""), width);
}

export class StatusBar implements Component {
  constructor(
    private readonly data: () => StatusData,
    private readonly theme: Theme,
  ) {}

  invalidate(): void {}

  /** The rows of the last frame (dialogs stay above them: dialogs/dialog-place.ts). */
  rows = 0;

  render(width: number): string[] {
    const lines = statusLines(this.data(), width, this.theme);
    this.rows = lines.length;
    return lines;
  }
}

/** Prompt-cache reads (and writes, where the provider reports them: Anthropic) beside the input tokens. */
function cacheNote(u: { cached: number; cacheWrite: number }, t: Theme): string {
  if (u.cached === 0 && u.cacheWrite === 0) return "";
  const written = u.cacheWrite > 0 ? `, ${formatTokens(u.cacheWrite)} written` : "";
  return t.dim(` (${formatTokens(u.cached)} cached${written})`);
}
