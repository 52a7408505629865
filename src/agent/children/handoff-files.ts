// Pickles a kernel hands over (rlm variables, submit()): the host deletes them once used and, for a remote
// kernel, reads them to send them there. The kernel names them in its call, so a name is taken only when
// it is one relm's Python makes (python/relm/handoff.py: handoff-HEX.pkl; a copy fetched from a remote
// kernel: UUID-handoff-HEX.pkl): a cell, sandboxed or not, cannot get the host to delete or read
// another file by naming it (docs/sandbox.md).
import { basename } from "node:path";
import { KernelCallError } from "../kernel-api/errors.js";

const HANDOFF =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-)?handoff-[0-9a-f]{32}\.pkl$/;

/** `path` when it names a handed-over pickle; the caller's ValueError otherwise. */
export function handoffPickle(path: string, what: string): string {
  if (!HANDOFF.test(basename(path))) {
    throw new KernelCallError(
      `${what}: ${JSON.stringify(path)} is not a file relm's Python handed over (handoff-….pkl)`,
    );
  }
  return path;
}
