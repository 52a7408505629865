// One configured server over the life of a session: started on the first request that needs it,
// restarted by the next request after it exits, stopped with the session. Failures become McpServerError
// (the server is unusable: it names the server and ends with its stderr) or McpRequestError (the server
// answered with an error).

import { performance } from "node:perf_hooks";
import type { KernelSandbox } from "../kernel/sandbox/types.js";
import type { McpServer } from "./config.js";
import { McpRequestError, McpServerError } from "./errors.js";
import { describeExit, messageOf, seconds, startFailure } from "./failures.js";
import type { Opened } from "./sdk.js";
import { StdioTransport } from "./stdio.js";

type Sdk = typeof import("./sdk.js");
let sdkModule: Promise<Sdk> | undefined;

/** The SDK, loaded on first use (see sdk.ts). */
function loadSdk(): Promise<Sdk> {
  if (!sdkModule) {
    const loading = import("./sdk.js");
    sdkModule = loading;
    // A failed load (a damaged install) is tried again by the next request.
    loading.catch(() => {
      if (sdkModule === loading) sdkModule = undefined;
    });
  }
  return sdkModule;
}

export type ConnectionState = "not started" | "starting" | "running" | "failed" | "exited" | "stopped";

export interface ToolInfo {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** A server that has just started, for the journal of the agent whose call started it. */
export interface StartInfo {
  server: string;
  kind: "stdio" | "http" | "sse";
  pid?: number;
  ms: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Told when this request is the one that started the server. */
  onStart?: (info: StartInfo) => void;
}

export interface ConnectionOptions {
  /** The environment a stdio server starts from (the session's, without secrets); its `env` goes on top. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  clientName: string;
  clientVersion: string;
  /** How long one request (and the handshake) may take. */
  requestTimeoutMs: number;
  /** A fresh tool list from the server (to cache for the next session's prompt). */
  onTools?: (server: McpServer, tools: ToolInfo[]) => void;
  /** Why the server may not start now (a project server the user has not approved); asked at each start. */
  refusal?: (server: McpServer) => string | undefined;
  /** The sandbox a stdio server's process runs in, or undefined to run it as it is. */
  confinement?: (server: McpServer) => Promise<KernelSandbox | undefined>;
}

/** After a failed start, requests within this long get its error instead of starting it again. */
const RESTART_PAUSE_MS = 5000;

/** Pages of a list request followed to the end (at most this many, against a server that loops). */
const MAX_PAGES = 100;

export class McpConnection {
  state: ConnectionState = "not started";
  /** Why it last failed or exited. */
  lastError: string | undefined;
  pid: number | undefined;
  kind: "stdio" | "http" | "sse" | undefined;
  private opened: Opened | undefined;
  private opening: Promise<Opened> | undefined;
  private generation = 0;
  private toolList: ToolInfo[] | undefined;
  private closing = false;
  /** The last failed start, which later requests get for RESTART_PAUSE_MS instead of another try. */
  private startFailed: { at: number; error: McpServerError } | undefined;
  /** The refusal last given (told again without a new journal event). */
  private refused: string | undefined;
  /** Whether the running (or starting) process is inside the session's sandbox, for messages. */
  private confined = false;
  /** Stops a start in progress when the session ends (a handshake must not hold the session open). */
  private startAbort: AbortController | undefined;

  constructor(
    readonly server: McpServer,
    private readonly options: ConnectionOptions,
  ) {}

  get name(): string {
    return this.server.name;
  }

  /** The tools as last listed by the running server (undefined before it ran or after it changed them). */
  get knownTools(): ToolInfo[] | undefined {
    return this.toolList;
  }

  async tools(options: RequestOptions = {}): Promise<ToolInfo[]> {
    if (this.toolList && this.state === "running") return this.toolList;
    const tools = await this.request(options, async (client, signal) => {
      const listed = await this.pages("tools", (page) => client.listTools(page, this.requestOptions(signal)));
      return listed.map((t) => ({
        name: t.name,
        title: t.title ?? (t.annotations?.title as string | undefined),
        description: t.description ?? "",
        inputSchema: t.inputSchema as Record<string, unknown>,
        outputSchema: t.outputSchema as Record<string, unknown> | undefined,
      }));
    });
    this.toolList = tools;
    this.options.onTools?.(this.server, tools);
    return tools;
  }

  callTool(name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<unknown> {
    return this.request(options, (client, signal) =>
      client.callTool({ name, arguments: args }, undefined, {
        ...this.requestOptions(signal),
        resetTimeoutOnProgress: true,
        // Progress from a long tool keeps its request alive; ignoring the values costs nothing.
        onprogress: () => {},
      }),
    );
  }

  listResources(options: RequestOptions = {}): Promise<unknown[]> {
    return this.request(options, (client, signal) =>
      this.pages("resources", (page) => client.listResources(page, this.requestOptions(signal))),
    );
  }

  listResourceTemplates(options: RequestOptions = {}): Promise<unknown[]> {
    return this.request(options, (client, signal) =>
      this.pages("resourceTemplates", (page) =>
        client.listResourceTemplates(page, this.requestOptions(signal)),
      ),
    );
  }

  readResource(uri: string, options: RequestOptions = {}): Promise<unknown> {
    return this.request(options, (client, signal) =>
      client.readResource({ uri }, this.requestOptions(signal)),
    );
  }

  listPrompts(options: RequestOptions = {}): Promise<unknown[]> {
    return this.request(options, (client, signal) =>
      this.pages("prompts", (page) => client.listPrompts(page, this.requestOptions(signal))),
    );
  }

  getPrompt(name: string, args: Record<string, string>, options: RequestOptions = {}): Promise<unknown> {
    return this.request(options, (client, signal) =>
      client.getPrompt({ name, arguments: args }, this.requestOptions(signal)),
    );
  }

  /**
   * Starts the server ahead of a request that is coming (a cell being written names it), so that its
   * start overlaps the model's writing. Only a server never started in this session: one that failed or
   * exited is started again by the request that needs it.
   */
  warm(onStart?: (info: StartInfo) => void): void {
    if (this.state !== "not started" || this.closing || this.server.problem) return;
    if (this.options.refusal?.(this.server)) return;
    this.open({ onStart }).catch(() => {});
  }

  /** Stops the server (end of the session); later requests are refused. */
  async close(): Promise<void> {
    this.closing = true;
    // A handshake still under way ends now, not when its timeout runs out (the session would wait).
    this.startAbort?.abort(new Error("the session is ending"));
    const opening = this.opening;
    this.opening = undefined;
    const opened = this.opened ?? (await opening?.catch(() => undefined));
    this.opened = undefined;
    if (this.state !== "not started") this.state = "stopped";
    if (opened) await (await loadSdk()).closeServer(opened);
  }

  private requestOptions(signal?: AbortSignal) {
    return { signal, timeout: this.options.requestTimeoutMs };
  }

  /** Every item of a paged list (`key` of each page), following its cursor. */
  private async pages<K extends string, R extends Record<K, unknown[]> & { nextCursor?: string }>(
    key: K,
    fetchPage: (page: { cursor?: string }) => Promise<R>,
  ): Promise<R[K][number][]> {
    const all: R[K][number][] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await fetchPage(cursor ? { cursor } : {});
      const items = result[key];
      if (Array.isArray(items)) all.push(...items);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return all;
  }

  /** Runs `fn` against a running server (started first if needed), with its failures translated. */
  private async request<T>(
    options: RequestOptions,
    fn: (client: Opened["client"], signal?: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const opened = await this.open(options);
    const generation = this.generation;
    try {
      return await fn(opened.client, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw await this.translate(error, generation, opened);
    }
  }

  private async open(options: RequestOptions): Promise<Opened> {
    if (this.closing) throw new McpServerError(this.name, `MCP server "${this.name}": the session is ending`);
    if (!this.opened && !this.opening) {
      // Before anything else the file says: an unapproved entry's text is not the user's.
      const refusal = this.options.refusal?.(this.server);
      if (refusal) {
        const repeated = this.refused === refusal;
        this.refused = refusal;
        throw new McpServerError(this.name, refusal, "", repeated);
      }
      this.refused = undefined;
    }
    if (this.server.problem)
      throw new McpServerError(this.name, `MCP server "${this.name}" cannot be used: ${this.server.problem}`);
    if (this.opened && this.state === "running") return this.opened;
    // A start that just failed is not tried again at once: a loop of calls must not spawn a broken
    // command hundreds of times (and journal each), so they get its error until the pause is over.
    const failed = this.startFailed;
    if (failed && !this.opening && performance.now() - failed.at < RESTART_PAUSE_MS) {
      const ago = Math.max(1, Math.round((performance.now() - failed.at) / 1000));
      throw new McpServerError(
        this.name,
        `${failed.error.message.split("\n")[0]} (${ago} s ago; not tried again for ${RESTART_PAUSE_MS / 1000} s)`,
        failed.error.stderrTail,
        true,
      );
    }
    if (!this.opening) {
      const opening = this.start(options.onStart);
      this.opening = opening;
      // Its failure is reported to every request waiting on it; nobody waiting must not crash the host.
      opening.catch(() => {});
    }
    return abortable(this.opening, options.signal);
  }

  private async start(onStart?: (info: StartInfo) => void): Promise<Opened> {
    this.state = "starting";
    const generation = ++this.generation;
    const started = performance.now();
    const server = this.server;
    const abort = new AbortController();
    this.startAbort = abort;
    let stdio: StdioTransport | undefined;
    if (server.transport === "stdio") {
      let sandbox: KernelSandbox | undefined;
      try {
        sandbox = await this.options.confinement?.(server);
      } catch (error) {
        throw this.failedStart(
          `MCP server "${this.name}" could not start: its sandbox could not be opened (${messageOf(error)})`,
        );
      }
      this.confined = sandbox !== undefined;
      const plain = {
        file: server.command as string,
        args: server.args,
        env: { ...this.options.env, ...server.env },
        cwd: server.cwd ?? this.options.cwd,
      };
      // Inside the session's sandbox: the same bubblewrap confinement as its kernels (trust.ts says when).
      stdio = new StdioTransport(sandbox ? sandbox.wrap(plain) : plain);
    }
    // The process boots while the SDK loads (each takes a few hundred milliseconds).
    stdio?.spawn().catch(() => {});
    let sdk: Sdk;
    try {
      sdk = await loadSdk();
    } catch (error) {
      await stdio?.close();
      throw this.failedStart(
        `MCP server "${this.name}" could not start: relm could not load the MCP SDK (${messageOf(error)})`,
      );
    }
    try {
      const opened = await sdk.openServer(
        server,
        {
          clientName: this.options.clientName,
          clientVersion: this.options.clientVersion,
          timeoutMs: this.options.requestTimeoutMs,
          signal: abort.signal,
          onListChanged: () => {
            this.toolList = undefined;
          },
          onClose: () => this.ended(generation),
        },
        stdio,
      );
      if (this.closing) {
        await sdk.closeServer(opened);
        throw new McpServerError(this.name, `MCP server "${this.name}": the session is ending`);
      }
      if (opened.stdio?.exit) throw Object.assign(new Error("Connection closed"), { stdio: opened.stdio });
      this.opened = opened;
      this.kind = opened.kind;
      this.pid = opened.stdio?.pid;
      this.state = "running";
      this.lastError = undefined;
      this.startFailed = undefined;
      onStart?.({
        server: this.name,
        kind: opened.kind,
        pid: this.pid,
        ms: Math.round(performance.now() - started),
      });
      return opened;
    } catch (error) {
      const failure =
        error instanceof McpServerError
          ? error
          : this.closing
            ? new McpServerError(this.name, `MCP server "${this.name}": the session is ending`)
            : startFailure(error, {
                server: this.server,
                confined: this.confined,
                timeoutMs: this.options.requestTimeoutMs,
              });
      if (!this.closing) this.recordFailure(failure);
      this.opening = undefined;
      throw failure;
    }
  }

  /** A start that failed before the handshake began: recorded like any failed start. */
  private failedStart(message: string): McpServerError {
    this.opening = undefined;
    return this.recordFailure(new McpServerError(this.name, message));
  }

  /** A failed start: told, and given to the requests of the next RESTART_PAUSE_MS instead of a new try. */
  private recordFailure(failure: McpServerError): McpServerError {
    this.state = "failed";
    this.lastError = failure.message;
    this.startFailed = { at: performance.now(), error: failure };
    return failure;
  }

  /** The connection of `generation` ended by itself (a process exited, an HTTP session closed). */
  private ended(generation: number): void {
    if (generation !== this.generation || this.closing) return;
    const stdio = this.opened?.stdio;
    this.opened = undefined;
    this.opening = undefined;
    this.toolList = undefined;
    if (this.state === "running") {
      this.state = "exited";
      this.lastError = `MCP server "${this.name}" ${stdio ? `exited (${describeExit(stdio.exit)})` : "closed the connection"}`;
    }
  }

  private async translate(error: unknown, generation: number, opened: Opened): Promise<Error> {
    const code = (error as { code?: unknown }).code;
    const { ErrorCode, McpError } = await loadSdk();
    const gone =
      generation !== this.generation || this.opened !== opened || code === ErrorCode.ConnectionClosed;
    if (gone && opened.stdio) {
      await opened.stdio.close().catch(() => {});
      return new McpServerError(
        this.name,
        `MCP server "${this.name}" exited during the request (${describeExit(opened.stdio.exit)})`,
        opened.stdio.stderr.tail(),
      );
    }
    if (error instanceof McpError && code !== ErrorCode.ConnectionClosed) {
      if (code === ErrorCode.RequestTimeout)
        return new McpRequestError(
          this.name,
          `MCP server "${this.name}" did not answer within ${seconds(this.options.requestTimeoutMs)}`,
          code as number,
        );
      return new McpRequestError(this.name, error.message.replace(/^MCP error -?\d+: /, ""), code as number);
    }
    // A transport failure (an HTTP server gone, a refused connection): the next request connects again.
    if (this.opened === opened) {
      this.opened = undefined;
      this.opening = undefined;
      this.state = "failed";
      this.toolList = undefined;
      void (await loadSdk()).closeServer(opened).catch(() => {});
    }
    const failure = new McpServerError(
      this.name,
      `MCP server "${this.name}" failed: ${messageOf(error)}`,
      opened.stdio?.stderr.tail() ?? "",
    );
    this.lastError = failure.message;
    return failure;
  }
}

/** Waits for `promise`, or rejects as soon as `signal` aborts (the work itself goes on). */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
