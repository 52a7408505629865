// One editor thread = one relm session, driven purely as a client of its session host (as the terminal
// UI does): the host is started at the first prompt (or revived when the session had ended), its events
// are mapped to session/update notifications, a prompt ends when the host has no work left, and a cancel
// is the host's `interrupt`. The host outlives this process, so the session stays a normal relm session:
// `relm agents`, `relm attach ID` and `relm run --resume ID` work on it.

import { join } from "node:path";
import type { ContentBlock, SessionModeState, SessionUpdate, StopReason } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../agent/core/events.js";
import { checkUserVariables, type UserVariable } from "../agent/core/user-variables.js";
import { isVariableName } from "../agent/core/variables.js";
import type { ApprovalAsker } from "../commands/approval-asker.js";
import { expandCustomLine } from "../commands/custom.js";
import { runCommandLine } from "../commands/run.js";
import { commandsFor } from "../commands/table.js";
import type { SessionSpec } from "../config/options.js";
import { MAX_MESSAGE_BYTES } from "../host/inbound.js";
import type { HostCall, ResultOf } from "../host/protocol.js";
import { SessionHandle } from "../host/session-handle.js";
import { type WorkOutcome, WorkWatch } from "../host/work-watch.js";
import { JOURNAL_FILE, readJournal, sessionDir } from "../session/index.js";
import { acpApprovals, type PermissionAsker } from "./approvals.js";
import { acpCommands, acpContext, isCommand } from "./commands.js";
import { UpdateMapper } from "./updates.js";

export interface SessionContext {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Options every host this agent starts gets (model, budgets…). */
  hostSpec: SessionSpec;
  /** Sends one session/update for this session (in order). */
  send(sessionId: string, update: SessionUpdate): Promise<void>;
  /** Asks the editor `session/request_permission` (a request of the kernels for more: approvals.ts). */
  askPermission: PermissionAsker;
}

export const MODES: SessionModeState["availableModes"] = [
  { id: "normal", name: "Normal", description: "answers each message, then waits for the next" },
  {
    id: "autonomous",
    name: "Autonomous",
    description:
      "keeps going with continuation prompts until done() is called, the gates pass or a budget is spent",
  },
];

/** Live output is sent at most this often per tool call. */
const FLUSH_MS = 50;
const MAX_VARIABLES = 20;
/**
 * A prompt's text longer than this (a log pasted into the editor) is not sent as the message, which a
 * host takes up to 16 KiB of (host/inbound.ts) and no model could read at 30 MB: the whole text goes
 * into a kernel variable, and the message shows its start and end. The margin is for relm's note.
 */
const MAX_PROMPT_TEXT_BYTES = MAX_MESSAGE_BYTES - 2048;
const SHOWN_HEAD_CHARS = 1500;
const SHOWN_TAIL_CHARS = 500;

type State = "new" | "live" | "offline";

/** A prompt that cannot be run (bad content, a host that will not start): told to the client. */
export class PromptError extends Error {
  override name = "PromptError";
}

export class AcpSession {
  /** The session's host: connected, started or revived, its history replayed after the last event seen. */
  private readonly handle: SessionHandle;
  /** Set while a host is being connected: sees the connection before history replays. */
  private beforeAttach: (() => void) | undefined;
  private readonly mapper: UpdateMapper;
  /** Requests of the session's kernels waiting for a person: asked of the editor (approvals.ts). */
  private readonly approvals: ApprovalAsker;
  private readonly watches = new Set<WorkWatch>();
  private outbox: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | undefined;
  private cancelRequested = false;
  /** The last `prompt_N` variable a long prompt became in this session. */
  private promptVariables = 0;
  autonomous = false;
  /** The editor's MCP servers for this session's host (`--mcp-config`), when it gave any. */
  mcpConfig: string | undefined;

  private constructor(
    readonly id: string,
    readonly cwd: string,
    private readonly ctx: SessionContext,
    private state: State,
  ) {
    this.mapper = new UpdateMapper(sessionDir(ctx.home, id));
    this.approvals = acpApprovals(
      id,
      ((...args: Parameters<HostCall>) => this.handle.call(...args)) as HostCall,
      ctx.askPermission,
    );
    this.handle = new SessionHandle({
      home: ctx.home,
      id,
      env: ctx.env,
      onEvent: (event) => this.onEvent(event),
      onConnect: () => {
        this.state = "live";
        this.beforeAttach?.();
        void this.approvals.refresh(); // one that waited while no front end was attached
      },
      onClosing: (reason) => {
        for (const watch of this.watches) watch.hostClosing(reason);
      },
      onClosed: () => {
        if (!this.handle.live) this.state = "offline";
      },
    });
  }

  /** A new thread: nothing starts (no host, no journal) until its first prompt. */
  static create(id: string, cwd: string, ctx: SessionContext): AcpSession {
    return new AcpSession(id, cwd, ctx, "new");
  }

  /**
   * An existing session: its history is sent as updates (a live host replays it and then streams; an
   * ended one is read from its journal and revived at the next prompt). Resolves once the history is out.
   * Without `replay` the history is skipped (a client that prompts a session it did not load).
   */
  static async load(id: string, ctx: SessionContext, replay = true): Promise<AcpSession> {
    const { header, events } = readJournal(join(sessionDir(ctx.home, id), JOURNAL_FILE));
    const session = new AcpSession(id, header.cwd, ctx, "offline");
    if (!replay) session.handle.lastN = events.at(-1)?.n ?? 0;
    for (const event of events) {
      const m = event.type === "variable" ? /^prompt_(\d+)$/.exec(String(event.name)) : null;
      if (m) session.promptVariables = Math.max(session.promptVariables, Number(m[1]));
    }
    if (await session.handle.connect()) {
      const info = await session.handle.call("info").catch(() => undefined);
      session.autonomous = Boolean(info?.autonomy);
    } else session.handle.replayJournal(replay);
    await session.drain();
    return session;
  }

  /** A host serves the session now. */
  get live(): boolean {
    return this.handle.live;
  }

  get modeId(): string {
    return this.autonomous ? "autonomous" : "normal";
  }

  /** Runs a prompt to the end of the work it starts; a slash command is answered here. */
  async prompt(blocks: ContentBlock[]): Promise<StopReason> {
    const typed = messageOf(blocks, () => `prompt_${++this.promptVariables}`);
    const { variables } = typed;
    // A custom command (.relm/commands/NAME.md) is sent as the message its file expands to.
    const custom =
      variables.length === 0 ? expandCustomLine(acpCommands(this.cwd, this.ctx.home), typed.text) : undefined;
    const text = custom ? custom.text : typed.text;
    if (!custom && variables.length === 0 && isCommand(text)) {
      await this.command(text);
      return "end_turn";
    }
    if (text.trim() === "" && variables.length === 0) return "end_turn";
    this.cancelRequested = false;
    this.mapper.sentByClient(text);
    let watch: WorkWatch | undefined;
    const delivered = await this.ensureHost({ text, variables }, () => {
      watch = this.watch();
    });
    if (!this.handle.live) throw new PromptError("the session host is not running");
    watch ??= this.watch();
    if (!delivered) {
      try {
        await this.handle.send(text, variables);
      } catch (error) {
        this.watches.delete(watch);
        throw new PromptError((error as Error).message);
      }
    }
    if (this.cancelRequested) await this.handle.call("interrupt").catch(() => undefined);
    const outcome = await watch.settled;
    this.watches.delete(watch);
    await this.drain();
    return this.stopReason(outcome);
  }

  /** session/cancel: the running cell is interrupted and sub-agents are cancelled (host `interrupt`). */
  async cancel(): Promise<void> {
    this.cancelRequested = true;
    if (this.handle.live) await this.handle.call("interrupt").catch(() => undefined);
  }

  async setMode(modeId: string): Promise<void> {
    if (!MODES.some((m) => m.id === modeId))
      throw new PromptError(`no mode "${modeId}" (normal, autonomous)`);
    const on = modeId === "autonomous";
    if (this.handle.live) await this.handle.call("autonomy", { mode: on ? "on" : "off" });
    this.autonomous = on;
  }

  /** Leaves the host running (it idles out on its own); this client stops following it. */
  detach(): void {
    clearTimeout(this.flushTimer);
    this.handle.close();
  }

  /** A slash command of the table (src/commands/), answered as one agent message. */
  private async command(line: string): Promise<void> {
    await this.ensureHost(undefined);
    if (!this.handle.live) throw new PromptError("the session host is not running");
    const replies: string[] = [];
    await runCommandLine(acpContext(this.followAutonomy, replies), commandsFor("acp"), line);
    const text = replies.join("\n") || "done";
    this.queue({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    await this.drain();
  }

  /** The host's calls; when autonomous mode was switched, the client's mode selector follows. */
  private readonly followAutonomy: HostCall = async (method, ...params) => {
    const result = await this.handle.call(method, ...params);
    if (method === "autonomy") {
      const on = (result as ResultOf<"autonomy">).autonomy !== null;
      if (on !== this.autonomous) {
        this.autonomous = on;
        this.queue({ sessionUpdate: "current_mode_update", currentModeId: this.modeId });
      }
    }
    return result;
  };

  private stopReason(outcome: WorkOutcome): StopReason {
    if (this.cancelRequested || outcome.status === "interrupted") return "cancelled";
    if (outcome.status === "closed") throw new PromptError(`the session host stopped: ${outcome.text}`);
    return "end_turn";
  }

  private watch(): WorkWatch {
    const watch = new WorkWatch(this.handle);
    this.watches.add(watch);
    return watch;
  }

  /**
   * Makes sure a host serves the session: started for a new thread, revived for an ended session.
   * Returns true when `message` was handed to the host as it started (a revived session's first turn).
   * `beforeAttach` is called once connected, before history replays, so a watch misses nothing.
   */
  private async ensureHost(
    message: { text: string; variables: UserVariable[] } | undefined,
    beforeAttach?: () => void,
  ): Promise<boolean> {
    if (this.handle.live) return false;
    const spec: SessionSpec = {
      ...this.ctx.hostSpec,
      interactive: true,
      ...(this.autonomous ? { autonomous: true } : {}),
      // Before relm acp's own --mcp-config files: the editor's servers win for the same name.
      mcpConfig: [...(this.mcpConfig ? [this.mcpConfig] : []), ...(this.ctx.hostSpec.mcpConfig ?? [])],
    };
    // The resume note and the person's message go in one turn, as `relm send` does it.
    const withText =
      this.state !== "new" && message && message.variables.length === 0 ? message.text : undefined;
    this.beforeAttach = beforeAttach;
    try {
      if (this.state === "new") await this.handle.start({ spec }, this.cwd);
      else await this.handle.revive({ message: withText, spec });
    } catch (error) {
      throw new PromptError((error as Error).message);
    } finally {
      this.beforeAttach = undefined;
    }
    return withText !== undefined;
  }

  private onEvent(event: AgentEvent): void {
    for (const watch of this.watches) watch.feed(event);
    this.approvals.onEvent(event);
    const live = event.type === "cell_output_delta" || event.type === "text_delta";
    // Output gathered so far goes out before whatever this event says (a cell's end follows its output).
    if (event.type !== "cell_output_delta") this.flush();
    for (const update of this.mapper.map(event)) this.queue(update);
    if (this.mapper.pending && !this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, FLUSH_MS);
    }
    if (!live && event.type === "model_response" && !event.agent && this.handle.live) void this.usage();
  }

  private flush(): void {
    for (const update of this.mapper.flush()) this.queue(update);
  }

  /** The context in use and what the session has cost, after each of the root's model calls. */
  private async usage(): Promise<void> {
    const info = await this.handle.call("info").catch(() => undefined);
    if (!info) return;
    this.queue({
      sessionUpdate: "usage_update",
      used: info.contextTokens,
      size: info.contextWindow,
      ...(info.cost !== null ? { cost: { amount: info.cost, currency: "USD" } } : {}),
    });
  }

  private queue(update: SessionUpdate): void {
    // A client that has gone away cannot be told; the session goes on regardless.
    this.outbox = this.outbox.then(() => this.ctx.send(this.id, update)).catch(() => undefined);
  }

  /** Resolves once every update queued so far has been written. */
  drain(): Promise<void> {
    this.flush();
    return this.outbox;
  }
}

function pathOf(uri: string): string {
  if (uri.startsWith("file://")) {
    try {
      return decodeURIComponent(new URL(uri).pathname);
    } catch {
      return uri;
    }
  }
  return uri;
}

/** A Python name for an attached file: its base name, made an identifier. */
function variableName(uri: string, taken: Set<string>): string {
  const base = pathOf(uri).split("/").filter(Boolean).at(-1) ?? "";
  let name = base
    .replace(/[^A-Za-z0-9_]/g, "_")
    .replace(/^[^A-Za-z]+/, "")
    .toLowerCase();
  if (!isVariableName(name)) name = "context";
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = `${name}_${i}`;
  taken.add(candidate);
  return candidate;
}

/**
 * The prompt as relm takes it: text as it is, files the editor mentions by link as their paths, and
 * files it embeds as kernel variables (the model gets their name, size and a preview, not the content).
 * Text longer than a message may be becomes a kernel variable too, named by `longTextName`.
 */
export function messageOf(
  blocks: ContentBlock[],
  longTextName: () => string = () => "prompt_1",
): { text: string; variables: UserVariable[] } {
  const parts: string[] = [];
  const variables: UserVariable[] = [];
  const taken = new Set<string>();
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(` ${pathOf(block.uri)} `);
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource && variables.length < MAX_VARIABLES) {
          const name = variableName(resource.uri, taken);
          variables.push({ name, text: resource.text });
          parts.push(` ${pathOf(resource.uri)} (its content is in the kernel variable ${name}) `);
        } else {
          parts.push(` ${pathOf(resource.uri)} `);
        }
        break;
      }
      default:
        parts.push(`[${block.type} content is not supported by relm and was left out]`);
    }
  }
  let text = parts.join("").trim();
  if (Buffer.byteLength(text) > MAX_PROMPT_TEXT_BYTES) {
    const name = longTextName();
    variables.push({ name, text });
    text = shortened(text, name);
  }
  try {
    return { text, variables: checkUserVariables(variables) };
  } catch (error) {
    throw new PromptError((error as Error).message);
  }
}

/** A long text as the message shows it: its start and end, and where the whole of it is. */
function shortened(text: string, name: string): string {
  const head = wholeChars(text.slice(0, SHOWN_HEAD_CHARS));
  const tail = wholeChars(text.slice(-SHOWN_TAIL_CHARS));
  const left = text.length - head.length - tail.length;
  const count = text.length.toLocaleString("en-US");
  return (
    `${head}\n… [${left.toLocaleString("en-US")} characters left out here] …\n${tail}\n\n` +
    `[relm] This message was ${count} characters long, more than a message may be: only its start and ` +
    `end are shown above. The whole of it is in the kernel variable ${name} (str).`
  );
}

/** Without a half of a surrogate pair at either end (a slice may cut one). */
function wholeChars(text: string): string {
  return text.replace(/^[\uDC00-\uDFFF]/, "").replace(/[\uD800-\uDBFF]$/, "");
}
