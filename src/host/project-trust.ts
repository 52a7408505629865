// Everything in the current project that steers the host and waits for the user's trust (docs/security.md,
// "Project files"): the hooks file, the project's MCP servers, sub-agent specs that choose a kernel. Each
// is found where its reader finds it and checked by config/project-trust.ts; `relm trust`, the session's
// start (cli/setup.ts) and the front ends' questions at start (line mode, the terminal UI) read this list.

import { listSpecs } from "../agent/children/specs.js";
import type { HookCommand } from "../config/hooks.js";
import { projectRoot } from "../config/project-root.js";
import {
  approveItems,
  HOOKS_TRUST_KIND,
  hooksItem,
  type ItemState,
  type ProjectItem,
  projectItemState,
  SPEC_KERNEL_TRUST_KIND,
  specKernelItem,
} from "../config/project-trust.js";
import { printable } from "../config/text.js";
import { updateTrust } from "../config/trust.js";
import { loadMcpConfig, MCP_TRUST_KIND, readTrust } from "../mcp/index.js";

interface SteeringItem {
  readonly item: ProjectItem;
  readonly state: ItemState;
}

interface ProjectSteering {
  readonly project: string;
  readonly items: readonly SteeringItem[];
  /** The project's hooks, when the user trusts its hooks file as it is now. */
  readonly trustedHooks: readonly HookCommand[];
}

/**
 * What the project in `cwd` asks relm to run, and what the user has approved of it; `userKernel`: the
 * session's own --kernel, which a spec may name without approval.
 */
export function projectSteering(
  cwd: string,
  home: string,
  env: NodeJS.ProcessEnv,
  userKernel?: string,
): ProjectSteering {
  const project = projectRoot(cwd);
  const store = readTrust(home);
  const items: SteeringItem[] = [];
  const add = (item: ProjectItem) => {
    const state = projectItemState(store, project, item);
    items.push({ item, state });
    return state;
  };
  let trustedHooks: HookCommand[] = [];
  const hooks = hooksItem(project);
  if (hooks && add(hooks.item) === "approved") trustedHooks = hooks.commands;
  for (const server of loadMcpConfig(cwd, home, env).servers) {
    const key = server.approval;
    if (!key || server.scope !== "project") continue;
    add({
      kind: MCP_TRUST_KIND,
      name: server.name,
      file: key.file,
      runs: [key.declared],
      sha256: key.sha256,
    });
  }
  // A spec naming the session's own --kernel chooses nothing the user did not (spec-trust.ts).
  for (const spec of listSpecs(cwd))
    if (spec.kernel !== undefined && spec.kernel !== userKernel)
      add(specKernelItem(project, { ...spec, kernel: spec.kernel }));
  return { project, items, trustedHooks };
}

/** The items not approved as they are now. */
export function untrusted(steering: ProjectSteering): SteeringItem[] {
  return steering.items.filter((i) => i.state !== "approved");
}

/** Approves these items of the project as they are now (trust.json, 0600). */
export function trustItems(home: string, steering: ProjectSteering, items: readonly SteeringItem[]): void {
  updateTrust(home, (store) =>
    approveItems(
      store,
      steering.project,
      items.map((i) => i.item),
    ),
  );
}

const KIND_WORDS: Record<string, string> = {
  [HOOKS_TRUST_KIND]: "hooks",
  [MCP_TRUST_KIND]: "MCP server",
  [SPEC_KERNEL_TRUST_KIND]: "agent spec kernel",
};

/** The listing: each item, its state and what it runs (escaped: a file's escape codes must not redraw it). */
export function describeSteering(steering: ProjectSteering): string[] {
  const lines: string[] = [];
  for (const { item, state } of steering.items) {
    const kind = KIND_WORDS[item.kind] ?? item.kind;
    const name = item.kind === HOOKS_TRUST_KIND ? "" : ` "${item.name}"`;
    lines.push(printable(`${item.file}: ${kind}${name} — ${state}`));
    for (const run of item.runs) lines.push(`    ${printable(run)}`);
  }
  return lines;
}
