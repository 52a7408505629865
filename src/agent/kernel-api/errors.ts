/**
 * An error answered to a call that Python code in a kernel made to its agent (calls.ts). The code becomes
 * a Python exception there: "budget" → rlm.BudgetExceeded, "depth" → RuntimeError, "usage" → ValueError,
 * "not_found" → LookupError, "conflict" → relm.harness.ConflictError, "mcp_server" / "mcp_tool" →
 * mcp.ServerError / mcp.ToolError, "web" → relm.toolkit.web.WebError (fetch, search), "sandbox" →
 * PermissionError (refused because the session is sandboxed). Without a code: "usage", the caller's mistake.
 */
export class KernelCallError extends Error {
  override name = "KernelCallError";

  constructor(
    message: string,
    readonly code:
      | "budget"
      | "depth"
      | "usage"
      | "not_found"
      | "conflict"
      | "mcp_server"
      | "mcp_tool"
      | "web"
      | "sandbox" = "usage",
  ) {
    super(message);
  }
}

export function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new KernelCallError(`${what}: expected an object of parameters`);
  }
  return value as Record<string, unknown>;
}

export function optionalString(params: Record<string, unknown>, key: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new KernelCallError(`${key} must be a string`);
  return value;
}

export function requiredString(params: Record<string, unknown>, key: string): string {
  const value = optionalString(params, key);
  if (value === undefined) throw new KernelCallError(`${key} is required`);
  return value;
}
