export { KERNEL_MARKER, markKernelEnv, scrubEnvironment, skillFolders, withSkillPath } from "./env.js";
export { KernelClosedError, KernelRequestError, KernelStartError, PythonNotFoundError } from "./errors.js";
export { startKernel } from "./kernel.js";
export { describeExit } from "./link.js";
export { RELM_PYTHON_DIR } from "./paths.js";
export { probeRemotePython } from "./probe-remote.js";
export { findPython, HOST_PYTHON_PRELUDE } from "./python.js";
export { shadowedSkillFolders, skillModuleOf } from "./skill-shadow.js";
export { startKernelTemplate } from "./template.js";
export type {
  Kernel,
  KernelLifecycleEvent,
  KernelOptions,
  KernelTemplate,
  KernelTemplateOptions,
} from "./types.js";
