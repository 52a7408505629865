import { UserError } from "../config/errors.js";

/** No usable Python interpreter was found (or RELM_PYTHON points at something that is not one). */
export class PythonNotFoundError extends UserError {
  override readonly name = "PythonNotFoundError";
  constructor(
    readonly tried: string[],
    detail?: string,
  ) {
    super(
      `${detail ?? "No Python 3.10+ interpreter found"} (tried: ${tried.join(", ") || "nothing"}). ` +
        "relm runs code in a Python kernel and needs Python 3.10+ with IPython. On Debian/Ubuntu: " +
        "`sudo apt-get install python3-ipython`; elsewhere `python3 -m pip install ipython`. " +
        "Or set RELM_PYTHON to the interpreter to use.",
    );
  }
}

/** The kernel process failed to start or to say it was ready. */
export class KernelStartError extends UserError {
  override readonly name = "KernelStartError";
  constructor(
    message: string,
    /** The runner's own stderr (Python's traceback if it crashed while starting). */
    readonly stderr: string,
  ) {
    super(stderr.trim() ? `${message}\n${stderr.trim()}` : message);
  }
}

/** The kernel was used after shutdown(). */
export class KernelClosedError extends Error {
  override readonly name = "KernelClosedError";
  constructor() {
    super("The kernel has been shut down.");
  }
}

/** setVariable / variables failed inside the kernel (bad name, unreadable file, ...). */
export class KernelRequestError extends Error {
  override readonly name = "KernelRequestError";
}
