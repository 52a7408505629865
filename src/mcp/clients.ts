import { withoutSecrets } from "../config/secret-env.js";
import type { KernelSandbox } from "../kernel/sandbox/types.js";
import type { McpConfig, McpScope, McpServer, McpTransport } from "./config.js";
import { type ConnectionOptions, type ConnectionState, McpConnection } from "./connection.js";
import { McpServerError } from "./errors.js";
import { type CachedTool, readToolCache, writeToolCache } from "./tool-cache.js";
import { type Admission, admissionOf, type McpTrustState, quoteArg, readTrust } from "./trust.js";

interface McpClientsOptions {
  /** The environment stdio servers start from; secrets (by name or a URL with a password) are removed first. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** $RELM_HOME/cache: where tool lists are kept between sessions. */
  cacheDir: string;
  clientVersion: string;
  requestTimeoutMs: number;
  /** $RELM_HOME, whose trust.json says which project servers the user approved (trust.ts). */
  home: string;
  /**
   * The session's sandbox, when it has one: stdio servers run inside it unless the user let them out
   * (trust.ts). Opened on first use (the kernels share it).
   */
  sandbox?: () => Promise<KernelSandbox | undefined>;
}

interface ServerStatus {
  name: string;
  transport: McpTransport;
  scope: McpScope;
  source: string;
  /** The command line or URL, without env or header values. */
  target: string;
  state: ConnectionState | "unusable" | "not approved" | "changed";
  /** "trusted" (the user's own file), "approved", "not approved" or "changed" since approved. */
  trust: McpTrustState;
  pid?: number;
  /** Why it is unusable, failed or exited. */
  error?: string;
  /** Tool names: from the running server, else from the cache, else null (never run). */
  tools: string[] | null;
}

/** A server's tools as a session's prompt lists them: from the cache, so that no server has to start. */
export interface CatalogEntry {
  name: string;
  transport: McpTransport;
  tools: CachedTool[] | undefined;
  problem?: string;
  /** A project server the user has not approved (or not as it is now): it cannot be called. */
  unapproved?: { state: "not approved" | "changed"; file: string; approveWith: string };
}

/**
 * The MCP servers of one agent tree: every configured server, each connected on the first request that
 * needs it and shared by every agent of the tree (their kernels' calls all reach this host process),
 * all stopped by close() when the session ends.
 */
export class McpClients {
  private readonly connections = new Map<string, McpConnection>();
  private readonly connectionOptions: ConnectionOptions;

  constructor(
    readonly config: McpConfig,
    private readonly options: McpClientsOptions,
  ) {
    this.connectionOptions = {
      env: withoutSecrets(options.env),
      cwd: options.cwd,
      clientName: "relm",
      clientVersion: options.clientVersion,
      requestTimeoutMs: options.requestTimeoutMs,
      onTools: (server, tools) => writeToolCache(options.cacheDir, server, tools),
      // Read at every start, so an approval given during the session counts from the next call.
      refusal: (server) => this.admission(server).refusal,
      confinement: async (server) => {
        if (server.transport !== "stdio" || !options.sandbox) return undefined;
        return this.admission(server).outsideSandbox ? undefined : options.sandbox();
      },
    };
  }

  /** May `server` start now, and inside the sandbox or not. */
  admission(server: McpServer, store = readTrust(this.options.home)): Admission {
    return admissionOf(server, store);
  }

  get servers(): readonly McpServer[] {
    return this.config.servers;
  }

  /** The connection to a configured server (not started by this); McpServerError for an unknown name. */
  get(name: string): McpConnection {
    let connection = this.connections.get(name);
    if (connection) return connection;
    const server = this.config.servers.find((s) => s.name === name);
    if (!server) {
      const names = this.config.servers.map((s) => s.name);
      throw new McpServerError(
        name,
        `no MCP server is called "${name}"; ${names.length > 0 ? `configured: ${names.join(", ")}` : "none is configured (relm mcp add, docs/mcp.md)"}`,
      );
    }
    connection = new McpConnection(server, this.connectionOptions);
    this.connections.set(name, connection);
    return connection;
  }

  /** Every server and its state; starts nothing. */
  status(): ServerStatus[] {
    const store = readTrust(this.options.home);
    return this.config.servers.map((server) => {
      const c = this.connections.get(server.name);
      const admission = this.admission(server, store);
      const refused = admission.refusal ? (admission.state as "not approved" | "changed") : undefined;
      const live = c?.knownTools?.map((t) => t.name);
      const cached = refused
        ? undefined
        : (live ?? readToolCache(this.options.cacheDir, server)?.map((t) => t.name));
      const state = refused ?? (server.problem ? "unusable" : (c?.state ?? "not started"));
      const status: ServerStatus = {
        name: server.name,
        transport: server.transport,
        scope: server.scope,
        source: server.source,
        target: targetOf(server),
        state,
        trust: admission.state,
        tools: cached ?? null,
      };
      if (c?.pid && c.state === "running") status.pid = c.pid;
      const error =
        admission.refusal ?? server.problem ?? (c && c.state !== "running" ? c.lastError : undefined);
      if (error) status.error = error;
      return status;
    });
  }

  /**
   * What the system prompt lists: configured servers with the tools cached for them. A server that may
   * not start is listed without its tools: what it offered is not the user's to vouch for.
   */
  catalog(): CatalogEntry[] {
    const store = readTrust(this.options.home);
    return this.config.servers.map((server) => {
      const admission = this.admission(server, store);
      const key = server.approval;
      if (key && (admission.state === "not approved" || admission.state === "changed"))
        return {
          name: server.name,
          transport: server.transport,
          tools: undefined,
          unapproved: { state: admission.state, file: key.file, approveWith: key.approveWith },
        };
      return {
        name: server.name,
        transport: server.transport,
        tools: server.problem ? undefined : readToolCache(this.options.cacheDir, server),
        problem: server.problem,
      };
    });
  }

  /** Pids of the stdio servers running now. */
  runningPids(): number[] {
    return [...this.connections.values()].flatMap((c) => (c.state === "running" && c.pid ? [c.pid] : []));
  }

  /**
   * Stops every server and forgets the connections: the next call starts a server again (with the
   * confinement of that moment: a session whose permission mode changed).
   */
  async stopAll(): Promise<void> {
    const running = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(running.map((c) => c.close().catch(() => {})));
  }

  /** Stops every server (the end of the session). */
  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close().catch(() => {})));
  }
}

/** The command line or URL of a server, for listings: never its env or header values. */
export function targetOf(server: McpServer): string {
  if (server.transport !== "stdio") return server.url ?? "";
  return [server.command ?? "", ...server.args].map(quoteArg).join(" ");
}
