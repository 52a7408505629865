// The kernel protocol's two sides cannot drift: the methods python/relm/ calls on its host are exactly
// the list the host answers (src/agent/kernel-api/methods.ts), and the host's dispatcher answers each one.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { handleKernelCall, type KernelCallsAgent } from "../../src/agent/kernel-api/calls.js";
import { KernelCallError } from "../../src/agent/kernel-api/errors.js";
import { KERNEL_METHODS } from "../../src/agent/kernel-api/methods.js";
import { ROOT } from "../support/cli.js";

/**
 * How python/relm/ reaches its host: calls.call / calls.notify, a module's wrapper around them, or the
 * cancel method sent when a cell is interrupted (a call's `cancel="…"`, or calls.cancelled_on_interrupt).
 */
const CALL =
  /\b(?:(?:calls\.call|calls\.notify|calls\.cancelled_on_interrupt|_call|_request|_agents_call|_ask)\(\s*|cancel=)"([a-z_][a-z_.]*)"/g;
/** A call whose method is not a literal must be one of the wrappers, passing its own `method` through. */
const INDIRECT = /\bcalls\.(?:call|notify)\((?!\s*(?:"|method\b))/g;

function pythonSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__pycache__" ? [] : pythonSources(path);
    return entry.name.endsWith(".py") ? [path] : [];
  });
}

function pythonMethods(): { methods: Set<string>; indirect: string[] } {
  const methods = new Set<string>();
  const indirect: string[] = [];
  for (const file of pythonSources(join(ROOT, "python", "relm"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(CALL)) methods.add(m[1] as string);
    for (const m of text.matchAll(INDIRECT)) indirect.push(`${file}: ${text.slice(m.index, m.index + 60)}`);
  }
  return { methods, indirect };
}

/** An agent any use of which throws: enough to tell a dispatched method from one the host does not have. */
const untouchable = new Proxy({} as KernelCallsAgent, {
  get: (_target, key) => {
    throw new Error(`touched ${String(key)}`);
  },
});

async function answered(method: string): Promise<boolean> {
  try {
    await handleKernelCall(untouchable, method, {});
    return true;
  } catch (error) {
    return !(error instanceof KernelCallError && error.code === "not_found");
  }
}

describe("the kernel protocol's method names", () => {
  it("are the same in python/relm/ and in the host's list", () => {
    const { methods, indirect } = pythonMethods();
    expect(indirect).toEqual([]);
    expect([...methods].sort()).toEqual([...KERNEL_METHODS].sort());
  });

  it("are each answered by the host's dispatcher, and nothing else is", async () => {
    const missing: string[] = [];
    for (const method of KERNEL_METHODS) if (!(await answered(method))) missing.push(method);
    expect(missing).toEqual([]);
    for (const stray of ["rlm.nope", "harness.nope", "mcp.nope", "web.nope", "nope"])
      expect(await answered(stray), stray).toBe(false);
  });
});
