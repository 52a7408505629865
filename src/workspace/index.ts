export {
  type Checkpoint,
  Checkpoints,
  type CheckpointsOptions,
  DEFAULT_MAX_FILE_BYTES,
  type RestoreResult,
  type SkippedFile,
  type Unavailable,
} from "./checkpoints.js";
export { CheckpointError } from "./git.js";
export { type MaterialiseOptions, materialiseCheckpoint } from "./materialise.js";
export { shadowDirFor } from "./shadow.js";
