export {
  type Checkpoint,
  Checkpoints,
  type CheckpointsOptions,
  type RestoreResult,
  type Unavailable,
} from "./checkpoints.js";
export { CheckpointError } from "./git.js";
export { materialiseCheckpoint } from "./materialise.js";
