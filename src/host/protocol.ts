// The session host's protocol in one place: every method a front end (the UI, ACP, the MCP server, the
// CLI) may call on a host's socket, with its params as a valibot schema (checked at the socket, before
// anything acts on them) and its result as a type. Front ends call through the typed client, so a
// method's name, what it takes and what it answers are written once, here (docs/sessions.md, "The protocol").

import * as v from "valibot";
import type { PendingApproval } from "../agent/approvals/broker.js";
import type { CompactionOutcome } from "../agent/compaction/compact-agent.js";
import type { ModeSwitch } from "../agent/core/agent.js";
import type { CheckpointSummary, SessionDiff, Undone } from "../agent/core/checkpoints.js";
import type { AgentEvent } from "../agent/core/events.js";
import type { RewindPoint, RewindResult } from "../agent/core/rewind.js";
import { checkUserVariables, type UserVariable, VariableInputError } from "../agent/core/user-variables.js";
import { WRITABLE_SCOPES } from "../config/harness-scopes.js";
import type { LearnSettings } from "../config/learn-config.js";
import { MAX_GOAL_CHARS } from "../config/option-values.js";
import { modeNamed, type PermissionMode } from "../config/permission-mode.js";
import type { JournalHeader } from "../session/types.js";
import type { SessionInfo } from "./info.js";
import { RPC, RpcError } from "./rpc.js";
import type { SessionState } from "./states/state.js";

// The answers of the methods the tree's plugin (learning/) gives: defined here, as part of the contract,
// and implemented there.
/** `refine`: a refinement proposed, kept under a one-time token until a person agrees. */
export interface RefineProposal {
  description: string;
  accepted: number;
  token: string;
  appliesWhere: string;
}

/** `refine.apply`: what was written, or why nothing was. */
export interface RefineApplied {
  applied: boolean;
  report: string;
  appliesWhere: string;
}

/** `learn`: online refinement of the session, on or off, and what its passes did. */
export interface LearnStatus {
  learn: LearnSettings | null;
  passes: number;
  /** Edits applied by this session's passes. */
  applied: number;
  spent: { tokens: number; cost: number | null };
}

/** A method's params schema and (as a type only) its result. */
interface MethodSpec<S extends v.GenericSchema, R> {
  readonly params: S;
  /** Never set: carries the result type. */
  readonly result?: R;
}

function method<R>() {
  return <S extends v.GenericSchema>(params: S): MethodSpec<S, R> => ({ params });
}

const MAX_GATES = 20;
const MAX_CHILD_MESSAGE_BYTES = 16 * 1024;
const GATES = `gates must be a list of at most ${MAX_GATES} shell commands (non-empty strings)`;
const GOAL = `text must be 1 to ${MAX_GOAL_CHARS} characters`;

const none = v.object({});
const MODE_WORDS = 'mode must be "plan", "workspace" or "full"';
/** A whole number from `min` on, every failure said with `message`. */
const wholeNumber = (min: number, message: string) =>
  v.pipe(v.number(message), v.integer(message), v.minValue(min, message));
const eventNumber = (what: string) => v.optional(wholeNumber(0, `${what} must be a whole number >= 0`));
/** A string `pattern` matches, every failure said with `message`. */
const matching = (pattern: RegExp, message: string) => v.pipe(v.string(message), v.regex(pattern, message));
const childId = matching(/^[0-9a-z]{1,64}$/, "id must be the id of a sub-agent");
const modeSwitch = v.optional(v.picklist(["on", "off", "status"], 'mode must be "on", "off" or "status"'));

/** Variables sent with a message: checked (names, sizes) as the kernel will take them. */
const userVariables = v.optional(
  v.pipe(
    v.custom<UserVariable[]>(() => true),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return checkUserVariables(dataset.value);
      } catch (error) {
        if (!(error instanceof VariableInputError)) throw error;
        addIssue({ message: error.message });
        return NEVER;
      }
    }),
  ),
);

/** The most images one message carries, and the most one may weigh (as look(): Anthropic's limit). */
const MAX_MESSAGE_IMAGES = 8;
export const MAX_IMAGE_BYTES = 3_750_000;

/** Images sent with a message: a known type and base64 bytes within the limit. */
const userImages = v.optional(
  v.pipe(
    v.array(
      v.object({
        name: v.pipe(
          v.string("an image's name must be a string"),
          v.maxLength(200, "an image's name is too long"),
        ),
        mimeType: v.picklist(
          ["image/png", "image/jpeg", "image/gif", "image/webp"],
          "an image must be PNG, JPEG, GIF or WebP",
        ),
        data: v.pipe(
          matching(/^[A-Za-z0-9+/]*={0,2}$/, "an image's data must be base64"),
          v.maxLength(
            Math.ceil(MAX_IMAGE_BYTES / 3) * 4,
            `an image must be at most ${MAX_IMAGE_BYTES} bytes`,
          ),
        ),
      }),
      "images must be a list",
    ),
    v.maxLength(MAX_MESSAGE_IMAGES, `at most ${MAX_MESSAGE_IMAGES} images go with one message`),
  ),
);

export interface HeartbeatJob {
  id: string;
  timing: string;
  prompt: string;
  next?: string;
}

/** `mode`: the session's permission mode now, and what a switch to it did (docs/sandbox.md). */
export interface ModeResult extends ModeSwitch {
  /** Why the mode is full without being asked for (no sandbox here), and how to get one. */
  warning?: string;
}

type DiffResult =
  | { error: string }
  | { none: string }
  | (Omit<SessionDiff, "patch"> & { file: string | null });

/** Every method of a session host: params (checked at the socket) and result. */
export const HOST_METHODS = {
  /** The session's state.json summary, live. */
  status: method<SessionState>()(none),
  /** What a status line shows. */
  info: method<SessionInfo>()(none),
  /** Journal events after `after` (replayed), then live `event` notifications. */
  attach: method<{ lastN: number }>()(
    v.object({
      after: eventNumber("after"),
      /** Who attaches, as other clients are told (the UI in /dev/pts/3, relm logs -f…). */
      as: v.optional(
        v.pipe(v.string("as must be a string"), v.maxLength(200, "as is at most 200 characters")),
      ),
      /** A sub-agent's page: also its running cell's output so far, when its own journal is at or before `after`. */
      child: v.optional(v.object({ id: childId, after: eventNumber("child.after") })),
    }),
  ),
  /** The other clients attached now, as each said who it is when it attached. */
  clients: method<{ others: string[] }>()(none),
  /** Stops the live events (the connection stays). */
  detach: method<null>()(none),
  /** A message from another session (stamped with the sender's id for a kernel's connection). */
  message: method<{ delivered: true }>()(
    v.object({
      from: v.string("from must be the sender (a string)"),
      text: v.string("text must be a string"),
    }),
  ),
  /** The person's message: a new turn when idle, else delivered at the next turn boundary. */
  /**
   * A person's message. `images` (the UI's ctrl+v or a dropped image file) go with it as image parts
   * when the model takes images; `imagesNotSent` says why they did not.
   */
  send: method<{ delivered: "now" | "at the next turn boundary"; imagesNotSent?: string }>()(
    v.object({
      text: v.string("text must be a string"),
      variables: userVariables,
      images: userImages,
      /** Typed in the terminal UI, open on this session: a refusal names the step that works from there. */
      attached: v.optional(v.boolean("attached must be true or false")),
    }),
  ),
  /**
   * The person's `!command`: run in the session's kernel between turns as a cell of its own (journaled),
   * its output kept for the model's next turn. Refused while a turn runs.
   */
  shell: method<{ status: string; output: string }>()(
    v.object({
      command: v.pipe(
        v.string("command must be a string"),
        v.trim(),
        v.minLength(1, "command must not be empty"),
        v.maxLength(10_000, "command is too long: at most 10000 characters"),
      ),
    }),
  ),
  stop: method<{ stopping: true }>()(v.object({ reason: v.optional(v.string("reason must be a string")) })),
  interrupt: method<{ interrupted: boolean }>()(none),
  "schedule.reload": method<{ jobs: number }>()(none),
  model: method<{ model: string; provider: string }>()(
    v.object({
      name: v.optional(
        v.pipe(
          v.string("name must be a model name"),
          v.regex(/^[^\s\p{Cc}]{1,200}$/u, "name must be a model name (no spaces, at most 200 chars)"),
        ),
      ),
    }),
  ),
  goal: method<{ goal: string | null; done: boolean }>()(
    v.object({
      text: v.optional(
        v.pipe(v.string(GOAL), v.trim(), v.minLength(1, GOAL), v.maxLength(MAX_GOAL_CHARS, GOAL)),
      ),
    }),
  ),
  autonomy: method<{ autonomy: { gates: string[] } | null }>()(
    v.object({
      mode: modeSwitch,
      gates: v.optional(
        v.pipe(
          v.array(
            v.pipe(
              v.string(GATES),
              v.check((g) => g.trim() !== "", GATES),
            ),
            GATES,
          ),
          v.maxLength(MAX_GATES, GATES),
        ),
      ),
    }),
  ),
  compact: method<CompactionOutcome>()(none),
  /** The permission mode; with `mode`, switches to it (the kernel restarts, its variables restored). */
  mode: method<ModeResult>()(
    v.object({
      mode: v.optional(
        v.pipe(
          v.string(MODE_WORDS),
          v.check((word) => modeNamed(word) !== undefined, MODE_WORDS),
          v.transform((word) => modeNamed(word) as PermissionMode),
        ),
      ),
    }),
  ),
  /** The kernels' requests waiting for a person now (docs/sandbox.md, "Approvals"). */
  approvals: method<{ pending: PendingApproval[] }>()(none),
  /**
   * A person's answer to one request, from a front end (`from`: which). Never a kernel's: code in a
   * kernel cannot call it (server.ts), so no kernel answers its own request.
   */
  approve: method<{ answered: boolean }>()(
    v.object({
      id: matching(/^[0-9a-f]{1,32}$/, "id must be the id of a waiting request"),
      answer: v.picklist(
        ["once", "session", "project", "deny"],
        'answer must be "once", "session", "project" or "deny"',
      ),
      from: v.picklist(
        ["ui", "acp", "mcp", "line", "web"],
        'from must be "ui", "acp", "mcp", "line" or "web"',
      ),
      note: v.optional(v.pipe(v.string("note must be a string"), v.maxLength(2000, "note is too long"))),
    }),
  ),
  checkpoints: method<{ checkpoints: CheckpointSummary[]; unavailable?: string }>()(none),
  undo: method<Undone | { error: string }>()(v.object({ turn: eventNumber("turn") })),
  /**
   * The session's file changes: the files now against its first checkpoint (/diff). The patch is
   * written to `file` (absolute, in the session's folder), which a pager opens.
   */
  diff: method<DiffResult>()(none),
  /** The person's messages the conversation can go back to (/rewind's picker), oldest first. */
  "rewind.points": method<{ points: RewindPoint[] }>()(none),
  /** Back to just before the message `to` (a point's `n`); the files too when `files`. Journaled as `rewind`. */
  rewind: method<RewindResult | { error: string }>()(
    v.object({
      to: wholeNumber(1, "to must be the number of one of your messages (rewind.points)"),
      files: v.optional(v.boolean("files must be true or false")),
    }),
  ),
  heartbeat: method<{ jobs: HeartbeatJob[]; job?: HeartbeatJob; cancelled?: number }>()(
    v.object({
      off: v.optional(v.boolean("off must be true or false")),
      every: v.optional(v.string('every must be a duration like "10m"')),
      prompt: v.optional(v.string("prompt must be a string")),
    }),
  ),
  refine: method<RefineProposal>()(
    v.object({
      scope: v.optional(v.picklist(WRITABLE_SCOPES, 'scope must be "session", "project" or "user"')),
    }),
  ),
  "refine.apply": method<RefineApplied>()(
    v.object({ token: v.string("token must be the token refine gave") }),
  ),
  learn: method<LearnStatus>()(v.object({ mode: modeSwitch })),
  "child.cancel": method<{ cancelled: boolean; status: string }>()(v.object({ id: childId })),
  "child.send": method<{ delivered: true }>()(
    v.object({
      id: childId,
      text: v.pipe(
        v.string("text must be a string"),
        v.minLength(1, "text must not be empty"),
        v.check(
          (t) => Buffer.byteLength(t) <= MAX_CHILD_MESSAGE_BYTES,
          `text is too long: at most ${MAX_CHILD_MESSAGE_BYTES} bytes`,
        ),
      ),
    }),
  ),
  "child.events": method<{ header: JournalHeader; events: AgentEvent[] }>()(
    v.object({ id: childId, after: eventNumber("after") }),
  ),
} as const;

type HostMethods = typeof HOST_METHODS;
export type HostMethod = keyof HostMethods;
/** What a caller passes (before the socket's check: untrimmed text, variables as given). */
type ParamsOf<M extends HostMethod> = v.InferInput<HostMethods[M]["params"]>;
/** What a handler gets (after the check). */
export type CheckedParamsOf<M extends HostMethod> = v.InferOutput<HostMethods[M]["params"]>;
export type ResultOf<M extends HostMethod> =
  HostMethods[M] extends MethodSpec<v.GenericSchema, infer R> ? R : never;

/** Params may be left out when every field is optional. */
export type ParamsArg<M extends HostMethod> =
  Record<string, never> extends ParamsOf<M> ? [params?: ParamsOf<M>] : [params: ParamsOf<M>];

/** A typed call on a host: the one signature the client, handles and front ends share. */
export type HostCall = <M extends HostMethod>(method: M, ...params: ParamsArg<M>) => Promise<ResultOf<M>>;

/** One handler per method a session host answers itself (attach, detach and clients are the socket's). */
export type HostHandlers = {
  [M in Exclude<HostMethod, "attach" | "detach" | "clients">]: (
    params: CheckedParamsOf<M>,
  ) => ResultOf<M> | Promise<ResultOf<M>>;
};

function isHostMethod(name: string): name is HostMethod {
  return Object.hasOwn(HOST_METHODS, name);
}

/**
 * `params` checked against `method`'s schema: the checked value (defaults, trimmed text), or an
 * RpcError — methodNotFound for a method the host does not have, invalidParams naming the field.
 */
export function checkParams<M extends HostMethod>(method: M, params: unknown): CheckedParamsOf<M>;
export function checkParams(method: string, params: unknown): unknown;
export function checkParams(method: string, params: unknown): unknown {
  if (!isHostMethod(method)) throw new RpcError(RPC.methodNotFound, `unknown method ${method}`);
  const given = params ?? {};
  if (typeof given !== "object" || Array.isArray(given)) {
    throw new RpcError(RPC.invalidParams, `invalid params: ${method}: expected an object`);
  }
  const checked = v.safeParse(HOST_METHODS[method].params, given);
  if (checked.success) return checked.output;
  const issue = checked.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".") ?? "";
  const field = path.split(".")[0] ?? "";
  // A field's own message starts with its name; a missing field gets valibot's "Invalid key", said plainly.
  const message =
    issue.input === undefined && path
      ? `${path} is missing`
      : path && !issue.message.startsWith(field)
        ? `${path}: ${issue.message}`
        : issue.message;
  throw new RpcError(RPC.invalidParams, `invalid params: ${method}: ${message}`);
}
