// rlm.map(...): one child per item, at most `max_parallel` at once, results in input order; by default
// the first failure cancels the children still running and the items not yet started, and so does
// `stop` (the cell waiting for the map was interrupted: rlm.map_cancel).
import { rmSync } from "node:fs";
import type { VariableSpec } from "../core/variables.js";
import { asRecord, optionalString, requiredString } from "../kernel-api/errors.js";
import { type LaunchOptions, labelOf, packedVariables } from "./launch.js";
import type { ChildReply } from "./result.js";

/** A started item: its agent as it is now (cancelled when another item fails) and its end. */
interface Started {
  readonly agent: { cancel(reason: string): void };
  readonly done: Promise<ChildReply>;
}

const DEFAULT_PARALLEL = 8;
const STOPPED = "the cell waiting in rlm.map was interrupted";

/** Runs the items of one rlm.map call; `start` launches a child as rlm.spawn does. */
export async function mapChildren(
  raw: unknown,
  start: (task: string, opts: LaunchOptions) => Started,
  stop?: AbortSignal,
): Promise<{ results: ChildReply[] }> {
  const params = asRecord(raw, "rlm.map");
  const task = requiredString(params, "task");
  const shared = packedVariables(params.shared, false);
  const items = Array.isArray(params.children) ? params.children : [];
  const perItem = items.map((c) => packedVariables(asRecord(c, "rlm.map child").variables, true));
  const limit =
    typeof params.max_parallel === "number" && params.max_parallel > 0
      ? params.max_parallel
      : DEFAULT_PARALLEL;
  const failFast = params.fail_fast !== false;
  const spec = optionalString(params, "spec");
  const model = optionalString(params, "model");
  const kernel = optionalString(params, "kernel");
  const mode = optionalString(params, "mode");

  const results: ChildReply[] = new Array(perItem.length);
  const running = new Set<Started>();
  let next = 0;
  let failed = false;
  const onStop = () => {
    failed = true;
    for (const other of running) other.agent.cancel(STOPPED);
  };
  stop?.addEventListener("abort", onStop, { once: true });
  const worker = async () => {
    while (next < perItem.length) {
      const i = next++;
      if (failed) {
        results[i] = {
          id: "",
          status: "cancelled",
          reason: stop?.aborted ? `not started: ${STOPPED}` : "not started: an earlier item failed",
          last_output: "",
          budget: false,
        };
        for (const v of perItem[i] ?? []) if ("pickle" in v.source) rmSync(v.source.pickle, { force: true });
        continue;
      }
      const record = start(task, {
        name: `${spec ?? "map"}-${i}`,
        label: labelOf(perItem[i]?.find((v) => v.name === "item")?.description),
        spec,
        model,
        kernel,
        mode,
        variables: [...shared, ...(perItem[i] as VariableSpec[])],
      });
      running.add(record);
      const reply = await record.done;
      running.delete(record);
      results[i] = reply;
      if (reply.status !== "done" && failFast && !failed) {
        failed = true;
        for (const other of running) other.agent.cancel("another item of rlm.map failed");
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, perItem.length) }, worker));
  } finally {
    stop?.removeEventListener("abort", onStop);
    // Every child has loaded (or will never load) the shared inputs: they are ours to remove.
    for (const v of shared) if ("pickle" in v.source) rmSync(v.source.pickle, { force: true });
  }
  return { results };
}
