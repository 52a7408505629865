export { isSecretEntry, isSecretName, KERNEL_MARKER, markKernelEnv, scrubEnvironment } from "./env.js";
export { KernelClosedError, KernelRequestError, KernelStartError, PythonNotFoundError } from "./errors.js";
export { startKernel } from "./kernel.js";
export { RELM_PYTHON_DIR } from "./paths.js";
export { probeRemotePython } from "./probe-remote.js";
export { type FoundPython, findPython } from "./python.js";
export { startKernelTemplate } from "./template.js";
export type {
  CellImage,
  CellResult,
  CellStatus,
  ExecuteOptions,
  HostRequestHandler,
  Kernel,
  KernelLifecycleEvent,
  KernelOptions,
  KernelTemplate,
  KernelTemplateOptions,
  PythonInfo,
  VariableSource,
  VariableSummary,
} from "./types.js";
