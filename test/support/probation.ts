// What the probation tests share (test/e2e/learning/harness-probation, harness-offline-probation): a project whose
// tasks write a report file that a gate reads, a refine model that proposes one lesson, and the scopes
// a lesson on probation moves between.
import { expect } from "vitest";
import { HarnessStore, scopeLocation } from "../../src/learning/store/index.js";
import type { ScriptContext, ScriptStep } from "../../src/scripted/index.js";
import { type CliResult, runRelm } from "./cli.js";
import { isRefine, lessonOnce, sessionIds, systemOf } from "./harness.js";
import type { Rig } from "./scripted.js";

export const GATE = "grep -q good out.txt";
export const REPORT = "TASK: write the report";

interface WireMessage {
  role: string;
}

/**
 * The refine model proposes `lesson` once; a task for which `own` has no step writes
 * `content(system prompt)` to out.txt, then says so.
 */
export function reportScript(
  lesson: string,
  content: (system: string) => string,
  own: (ctx: ScriptContext, messages: WireMessage[]) => ScriptStep | undefined = () => undefined,
): (ctx: ScriptContext) => ScriptStep {
  const refine = lessonOnce(lesson, "the report gate passes at the first try");
  return (ctx) => {
    if (isRefine(ctx)) return refine(ctx);
    const messages = (ctx.body as { messages: WireMessage[] }).messages;
    const step = own(ctx, messages);
    if (step) return step;
    if (messages.at(-1)?.role === "tool") return { text: "written" };
    return { code: `open('out.txt', 'w').write(${JSON.stringify(content(systemOf(ctx.body)))})` };
  };
}

/** `relm ARGS` in the rig's project. */
export function relmIn(rig: Rig, args: string[]): Promise<CliResult> {
  return runRelm(args, { env: rig.env, cwd: rig.cwd });
}

/** `relm run ARGS` ending with `code`: the new session's id, its output and the first request it sent. */
export async function runSession(rig: Rig, args: string[], code: number) {
  const before = new Set(sessionIds(rig.home));
  const requests = rig.model.requests.length;
  const result = await relmIn(rig, ["run", ...args]);
  expect(result.code, result.stderr).toBe(code);
  const id = sessionIds(rig.home).find((s) => !before.has(s)) as string;
  return { id, stderr: result.stderr, stdout: result.stdout, first: rig.model.requests[requests] };
}

/** The rig's project: its probation scope and the project scope a lesson is promoted to. */
export function probationStores(rig: Rig): { probation: HarnessStore; project: HarnessStore } {
  return {
    probation: new HarnessStore(scopeLocation("probation", { cwd: rig.cwd, home: rig.home })),
    project: new HarnessStore(scopeLocation("project", { cwd: rig.cwd, home: rig.home })),
  };
}
