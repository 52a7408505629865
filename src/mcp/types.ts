// The shape of a configured MCP server, apart from the modules that read one (config.ts) and decide
// whether it may start (trust.ts), which both need it.

/** "http" is Streamable HTTP, falling back to the older HTTP+SSE transport when the server wants it. */
export type McpTransport = "stdio" | "http" | "sse";
/** "session": given to this session only (--mcp-config); wins over "project", which wins over "user". */
export type McpScope = "session" | "project" | "user";

export interface McpServer {
  name: string;
  scope: McpScope;
  /** The file the entry came from. */
  source: string;
  transport: McpTransport;
  command?: string;
  args: string[];
  /** Given to the server's process only (never to a kernel, a journal or a prompt). */
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  /** Sent to the server only, like env. */
  headers: Record<string, string>;
  /** Why the entry cannot be used (an unset ${VAR}, "disabled": true), told to whoever calls it. */
  problem?: string;
  /**
   * Set when the entry comes from a file inside the project: it starts only once the user approved
   * this exact entry (trust.ts).
   */
  approval?: McpApprovalKey;
  /** `"sandbox": false`: runs outside a sandboxed session's sandbox (honoured in the user's own files only). */
  unconfined?: boolean;
}

/** What a server needing approval is checked against: set by loadMcpConfig for such servers only. */
export interface McpApprovalKey {
  /** The project directory (approvals are per project). */
  project: string;
  /** The file it came from, relative to the project (".mcp.json"), as messages name it. */
  file: string;
  /** contentHash() of its entry as written (before ${VAR} expansion) and of that file's name. */
  sha256: string;
  /** The command line or URL as the file writes it, for messages shown to the model. */
  declared: string;
  /** How to approve it: the flags `relm mcp approve` needs to see its file. */
  approveWith: string;
  /** The entry as the file holds it: what `relm mcp approve` shows is what it approves. */
  entry: unknown;
}
