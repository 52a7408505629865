export {
  checkJournal,
  cutAtDamage,
  DAMAGE_FILE,
  DAMAGED_INDEX,
  damagedIds,
  type JournalDamage,
  type JournalHealth,
  readDamage,
} from "./damage.js";
export { JournalFormatError, SessionIdError } from "./errors.js";
export { EXPORT_FORMATS, type ExportFormat, exportSession, writeExport } from "./export.js";
export { AmbiguousSessionIdError, newSessionId, resolveSessionId, SessionNotFoundError } from "./ids.js";
export { JOURNAL_FILE, Journal, type JournalOptions, OUTPUTS_DIR } from "./journal.js";
export {
  EDITOR_MCP_FILE,
  editorMcpFile,
  ensurePrivateDir,
  relmHome,
  sessionDir,
  sessionsDir,
} from "./paths.js";
export {
  type JournalTail,
  type ReadJournalResult,
  readHeaderAndTail,
  readJournal,
  readJournalFrom,
  readJournalHeader,
} from "./read.js";
export { REDACTED } from "./redact.js";
export * from "./types.js";
export { JournalBusyError, WRITER_LOCK_FILE } from "./writer-lock.js";
