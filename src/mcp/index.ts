// MCP client connections shared by an agent tree (layer 3: no agent concepts). The SDK itself is
// loaded only when a server is first used (sdk.ts).
export {
  type CatalogEntry,
  McpClients,
  type McpClientsOptions,
  type ServerStatus,
  targetOf,
} from "./clients.js";
export {
  expandVars,
  loadMcpConfig,
  MAX_NAME,
  type McpConfig,
  type McpScope,
  type McpServer,
  type McpTransport,
  mcpConfigFiles,
  mcpProjectRoot,
  parseServer,
  readServersFile,
  serverHash,
  serverSecrets,
} from "./config.js";
export {
  type ConnectionState,
  McpConnection,
  type RequestOptions,
  type StartInfo,
  type ToolInfo,
} from "./connection.js";
export { McpRequestError, McpServerError } from "./errors.js";
export { type CachedTool, readToolCache, summaryOf } from "./tool-cache.js";
export {
  type Admission,
  admissionOf,
  approvalKey,
  approveServer,
  MCP_TRUST_KIND,
  type McpApprovalKey,
  type McpTrustState,
  printable,
  readTrust,
  revokeServer,
} from "./trust.js";
