export { checkJournal, cutAtDamage } from "./damage.js";
export { JournalFormatError } from "./errors.js";
export { EXPORT_FORMATS, type ExportFormat, exportSession, writeExport } from "./export.js";
export {
  AmbiguousSessionIdError,
  newSessionId,
  resolveAgent,
  resolveSessionId,
  SessionNotFoundError,
} from "./ids.js";
export { JOURNAL_FILE, Journal } from "./journal.js";
export {
  EDITOR_MCP_FILE,
  editorMcpFile,
  ensurePrivateDir,
  relmHome,
  sessionDir,
  sessionsDir,
} from "./paths.js";
export { readHeaderAndTail, readJournal, readJournalHeader } from "./read.js";
export { spendFromResponses } from "./transcript.js";
export * from "./types.js";
export { JournalBusyError, WRITER_LOCK_FILE } from "./writer-lock.js";
