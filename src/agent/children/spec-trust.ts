// A sub-agent spec's `kernel:` chooses where code runs (an ssh host, a cluster, a command line), and the
// spec is a project file a sandboxed cell or a cloned repository may have written: it is used only once
// the user approved it as it is now (`relm trust`; docs/security.md, "Project files").

import { projectRoot } from "../../config/project-root.js";
import { projectItemState, specKernelItem } from "../../config/project-trust.js";
import { TrustStore } from "../../config/trust.js";
import { KernelCallError } from "../kernel-api/errors.js";
import type { AgentSpec } from "./specs.js";

/** Throws the refusal the cell reads when the spec's kernel is not approved as it is now. */
export function requireTrustedSpecKernel(
  options: { cwd: string; home: string; kernel: { target?: string } },
  spec: AgentSpec,
): void {
  if (spec.kernel === undefined || spec.path.startsWith("harness entry")) return;
  // The kernel the user gave this session (--kernel) is the user's choice, whoever names it again.
  if (spec.kernel === options.kernel.target) return;
  const project = projectRoot(options.cwd);
  const item = specKernelItem(project, { ...spec, kernel: spec.kernel });
  let state: string;
  try {
    state = projectItemState(TrustStore.load(options.home), project, item);
  } catch (error) {
    state = `unreadable (${(error as Error).message})`;
  }
  if (state === "approved") return;
  throw new KernelCallError(
    `agent spec "${spec.name}" (${item.file}) chooses kernel ${spec.kernel}, which the user has ` +
      `${state === "changed" ? "not approved since the spec changed" : "not approved"}: project files that choose where code runs are ` +
      "used only after `relm trust`. Leave the spec out (or its kernel: out) to run the sub-agent here, or ask the user to run `relm trust`.",
  );
}
