/**
 * A server could not be used: it is not configured, could not start, exited, or could not be reached.
 * The message names the server and ends with the tail of its stderr when there is one.
 */
export class McpServerError extends Error {
  override name = "McpServerError";

  constructor(
    readonly server: string,
    message: string,
    readonly stderrTail = "",
    /** The same failure as a moment ago, told again without a new attempt (nothing new to journal). */
    readonly repeated = false,
  ) {
    super(stderrTail ? `${message}\nIts stderr ended with:\n${indent(stderrTail)}` : message);
  }
}

/** The server answered with an error (an unknown tool, invalid arguments, a timeout): it is still usable. */
export class McpRequestError extends Error {
  override name = "McpRequestError";

  constructor(
    readonly server: string,
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

/** The last `max` characters of a stream, cut at a line start when possible. */
export class TailBuffer {
  private text = "";

  constructor(private readonly max = 4000) {}

  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.max * 2) this.text = this.text.slice(-this.max);
  }

  /** The last lines, at most `chars` characters of them. */
  tail(chars = 1500): string {
    let out = this.text.slice(-chars);
    if (out.length < this.text.length) {
      const nl = out.indexOf("\n");
      if (nl >= 0 && nl < out.length - 1) out = out.slice(nl + 1);
    }
    return out.trimEnd();
  }
}
