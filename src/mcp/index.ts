// MCP client connections shared by an agent tree (layer 3: no agent concepts). The SDK itself is
// loaded only when a server is first used (sdk.ts).
export { type CatalogEntry, McpClients, targetOf } from "./clients.js";
export {
  checkSessionFiles,
  loadMcpConfig,
  MAX_NAME,
  type McpConfig,
  type McpServer,
  mcpConfigFiles,
  parseServer,
  serverHash,
  serverSecrets,
} from "./config.js";
export { McpConnection, type RequestOptions, type StartInfo } from "./connection.js";
export { McpRequestError, McpServerError } from "./errors.js";
export { type CachedTool, readToolCache, summaryOf } from "./tool-cache.js";
export {
  type Admission,
  admissionOf,
  approvalKey,
  approveServer,
  MCP_TRUST_KIND,
  readTrust,
} from "./trust.js";
