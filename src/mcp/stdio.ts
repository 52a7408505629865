// The stdio transport: a server as a child process speaking JSON-RPC lines on stdin/stdout. relm's own
// rather than the SDK's StdioClientTransport because relm needs what that one hides: the exit status and
// the tail of stderr (for the error a kernel sees), a process group of its own (so a Ctrl-C at the
// terminal, meant for a cell, does not reach the server, and `npx`'s grandchildren end with it), a
// quick stop at the end of a session, and a start before the SDK is loaded. It imports only the SDK's
// types, so loading it loads nothing of the SDK.

import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isRecord, parseJson } from "../config/records.js";
import { BoundedLineSplitter, writeJsonLine } from "../kernel/lines.js";
import type { SpawnCommand } from "../kernel/sandbox/types.js";
import { TailBuffer } from "./errors.js";

interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** After stdin closes, a server gets this long to exit by itself before SIGTERM, then SIGKILL. */
const EXIT_GRACE_MS = 300;
const TERM_GRACE_MS = 1000;
/** A line longer than this is not a message (a server writing garbage to stdout). */
const MAX_LINE = 256 * 1024 * 1024;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly stderr = new TailBuffer();
  exit: ProcessExit | undefined;
  /**
   * Why the server's last invalid answer was refused (a result that is not an object, …). Such an
   * answer reaches the client as an error for its request at once: the SDK would drop it and leave the
   * request waiting until its timeout.
   */
  malformed: string | undefined;
  /** Methods of the requests sent and not yet answered, by id (to name them in `malformed`). */
  private readonly pending = new Map<string | number, string>();
  private child: ChildProcess | undefined;
  private readonly lines = new BoundedLineSplitter(
    (line) => this.deliver(line),
    () => this.onerror?.(new Error(`the server wrote a line longer than ${MAX_LINE} bytes to stdout`)),
    MAX_LINE,
  );
  private exited: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  /** Messages that arrived before the client took over (it starts the transport after spawn()). */
  private early: JSONRPCMessage[] = [];

  constructor(private readonly command: SpawnCommand) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Starts the process. Called by the connection before the SDK is loaded, so the server boots while
   * the SDK loads (both take a few hundred milliseconds); the client's own start() call then finds it
   * running.
   */
  spawn(): Promise<void> {
    this.started ??= this.launch();
    return this.started;
  }

  /** Transport.start(): the client is ready for messages now. */
  async start(): Promise<void> {
    await this.spawn();
    const early = this.early;
    this.early = [];
    for (const message of early) this.onmessage?.(message);
  }

  private launch(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.command.file, this.command.args, {
        cwd: this.command.cwd,
        env: this.command.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.stdout?.on("data", (chunk: Buffer) => this.lines.push(chunk));
      child.stderr?.setEncoding("utf8").on("data", (text: string) => this.stderr.push(text));
      // A server that exits while we write would otherwise crash the host with EPIPE.
      child.stdin?.on("error", () => {});
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
      });
      child.once("close", (code, signal) => {
        this.exit ??= { code, signal };
        this.onclose?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || stdin.destroyed) return Promise.reject(new Error("the server is not running"));
    const { id, method } = message as { id?: unknown; method?: unknown };
    if ((typeof id === "string" || typeof id === "number") && typeof method === "string") {
      this.pending.set(id, method);
      // Bounded by what is in flight; a server that never answers must not grow this without end.
      if (this.pending.size > 10_000)
        this.pending.delete(this.pending.keys().next().value as string | number);
    }
    return writeJsonLine(stdin, message);
  }

  /** Closes stdin (most servers exit then), then SIGTERM and SIGKILL to its process group if not. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) return;
    child.stdin?.end();
    if (await this.exitsWithin(EXIT_GRACE_MS)) return;
    this.signal("SIGTERM");
    if (await this.exitsWithin(TERM_GRACE_MS)) return;
    this.signal("SIGKILL");
    await this.exitsWithin(TERM_GRACE_MS);
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    if (this.exit) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const done = await Promise.race([this.exited?.then(() => true as const), timeout]);
    clearTimeout(timer);
    return done === true;
  }

  private deliver(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.trim() === "") return;
    // Not JSON (undefined) is told as what is not JSON-RPC.
    const message = parseJson(text);
    if (!isRecord(message) || message.jsonrpc !== "2.0") {
      // Servers that print logs to stdout: not a message, and not fatal.
      this.stderr.push(`[stdout] ${text.slice(0, 500)}\n`);
      return;
    }
    const checked = this.checked(message);
    if (this.onmessage) this.onmessage(checked);
    else this.early.push(checked);
  }

  /**
   * A response as the SDK accepts it: {jsonrpc, id, result: object} or {jsonrpc, id, error: {code,
   * message, data?}}, other keys dropped. Anything else with an id the client is waiting for becomes an
   * error response for it, so that the request fails now, naming what was wrong.
   */
  private checked(message: Record<string, unknown>): JSONRPCMessage {
    const { id } = message;
    if ("method" in message || (typeof id !== "string" && typeof id !== "number"))
      return message as JSONRPCMessage;
    const method = this.pending.get(id);
    this.pending.delete(id);
    const { result, error } = message;
    if (error === undefined && isRecord(result)) return { jsonrpc: "2.0", id, result } as JSONRPCMessage;
    if (
      result === undefined &&
      isRecord(error) &&
      Number.isInteger(error.code) &&
      typeof error.message === "string"
    )
      return {
        jsonrpc: "2.0",
        id,
        error: {
          code: error.code as number,
          message: error.message,
          ...("data" in error ? { data: error.data } : {}),
        },
      } as JSONRPCMessage;
    const why =
      result !== undefined && error !== undefined
        ? "it has both a result and an error"
        : result !== undefined
          ? `its result is ${kindOf(result)}, not an object`
          : error !== undefined
            ? "its error is not an object with a numeric code and a message"
            : "it has neither a result nor an error";
    this.malformed = `its answer to ${method ?? `request ${JSON.stringify(id)}`} is not valid JSON-RPC (${why})`;
    this.stderr.push(`[stdout] ${JSON.stringify(message).slice(0, 500)}\n`);
    return {
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: `the server's ${this.malformed.slice(4)}` },
    } as JSONRPCMessage;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
