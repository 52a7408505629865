export { byIdOrPrefix, type IdLookup, idMatches } from "./by-id.js";
export { formatEdits, formatRevision, revisionSummary } from "./diff.js";
export { copyOf, intentToEdit } from "./edits.js";
export { LIMITS, overLimit, roomHint, usageOf } from "./limits.js";
export { type LoadedHarness, loadHarness, openStores, skillUseKey } from "./load.js";
export { readJsonLines, takeLogWarnings } from "./log-read.js";
export {
  ensureDir,
  lockProjectScope,
  projectHash,
  projectRoot,
  rootContext,
  scopeLocation,
} from "./paths.js";
export { PROBATION_HEADING, renderedLine, renderHarness } from "./render.js";
export { checkEntry } from "./revision-schema.js";
export { checkSkillFile, describeSkillProblem, findSkills } from "./skills.js";
export { applyEdits, deriveState, ENTRY_ID_PATTERN, entriesOf, sameLesson } from "./state.js";
export {
  type CommitResult,
  HarnessConflictError,
  HarnessLimitError,
  HarnessLogError,
  HarnessStore,
  REVISIONS_FILE,
  useKey,
} from "./store.js";
export * from "./types.js";
export { checkCopy, checkIntent, checkName } from "./validate.js";
export * from "./verdict-log.js";
