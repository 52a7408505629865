// Kernel URIs to launchers (see types.ts for what a launcher is and how to add one).
import { cmdScheme } from "./cmd.js";
import { containerScheme } from "./container.js";
import { k8sScheme } from "./k8s.js";
import { LOCAL, localScheme } from "./local.js";
import { sandboxScheme } from "./sandbox.js";
import { slurmScheme } from "./slurm.js";
import { sshScheme } from "./ssh.js";
import type { Launcher, LauncherScheme } from "./types.js";
import { launcherUsage } from "./uri.js";

export { LOCAL } from "./local.js";

/** Every kernel target relm knows; adding a launcher is one line here. */
const SCHEMES: readonly LauncherScheme[] = [
  localScheme,
  cmdScheme,
  sshScheme,
  slurmScheme,
  containerScheme,
  k8sScheme,
  sandboxScheme,
];

/**
 * The launcher for a kernel URI: `local`, `cmd:COMMAND`, `ssh://...`, ... `where` names its source in
 * the UsageError a bad URI gets ("--kernel", "config kernel", "agent spec NAME", "rlm.spawn kernel=").
 */
export function parseKernelUri(uri: string, where = "--kernel"): Launcher {
  const text = uri.trim();
  if (!text || text === "local") return LOCAL;
  const scheme = schemeOf(text);
  const found = SCHEMES.find((s) => s.scheme === scheme);
  if (found) return found.parse(text, where);
  // The forms without their options: the message stays one readable line.
  const list = SCHEMES.map((s) => s.syntax.split(" ")[0]!.replace(/\[\?.*$/, "")).join(", ");
  throw launcherUsage(where, uri, "unknown kernel target", `Use one of: ${list}.`);
}

/** "ssh" of `ssh://h`, "cmd" of `cmd:x`, the word itself for `local`/`sandbox`. */
function schemeOf(uri: string): string {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(uri);
  return (m ? m[1]! : uri).toLowerCase();
}
