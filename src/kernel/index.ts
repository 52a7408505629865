export { KERNEL_MARKER, markKernelEnv, scrubEnvironment, withSkillPath } from "./env.js";
export { KernelClosedError, KernelRequestError, KernelStartError, PythonNotFoundError } from "./errors.js";
export { startKernel } from "./kernel.js";
export { RELM_PYTHON_DIR } from "./paths.js";
export { probeRemotePython } from "./probe-remote.js";
export { findPython, HOST_PYTHON_PRELUDE } from "./python.js";
export { startKernelTemplate } from "./template.js";
export type {
  Kernel,
  KernelLifecycleEvent,
  KernelOptions,
  KernelTemplate,
  KernelTemplateOptions,
} from "./types.js";
