export { diffLines, formatEdit, formatEdits, formatRevision, revisionSummary } from "./diff.js";
export { intentToEdit } from "./edits.js";
export { type HarnessSpec, type LoadedHarness, loadHarness, openStores, skillUseKey } from "./load.js";
export { HarnessLockError } from "./lock.js";
export {
  agentsSkillsDir,
  ensureDir,
  HarnessScopeError,
  lockProjectScope,
  projectHash,
  projectRoot,
  scopeLocation,
  writeFile,
} from "./paths.js";
export { PROBATION_HEADING, renderedLine, renderHarness } from "./render.js";
export { MARKER_FILE, skillMarkdown, syncSkillFolders } from "./skill-files.js";
export {
  checkSkillFile,
  describeSkillProblem,
  discoverSkills,
  findSkills,
  readSkillFile,
  type SkillInfo,
  type SkillProblem,
} from "./skills.js";
export {
  applyEdits,
  type Current,
  deriveState,
  ENTRY_ID_PATTERN,
  inverseEdits,
  laterTouching,
  normaliseText,
} from "./state.js";
export {
  type CommitRequest,
  type CommitResult,
  HarnessConflictError,
  HarnessLogError,
  HarnessStore,
  LOCK_FILE,
  REVISIONS_FILE,
  RevisionNotFoundError,
  USES_FILE,
  useKey,
} from "./store.js";
export * from "./types.js";
export { type CheckContext, type Checked, checkIntent, checkName, LIMITS } from "./validate.js";
export * from "./verdict-log.js";
