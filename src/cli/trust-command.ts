// `relm trust` (docs/cli.md): the current project's files that steer the host — `.relm/hooks.json`, the
// MCP servers of `.mcp.json` / `.relm/mcp.json`, sub-agent specs with a `kernel:` — with what each
// runs and whether you approved it as it is now. In a terminal it asks before approving; `--yes`
// approves without asking (a script that has already reviewed them), `--list` only lists, `--revoke`
// forgets every approval of this project. What it prints is what it approves: one reading of the files.

import { relmHomeFrom } from "../config/config.js";
import { UsageError } from "../config/errors.js";
import { HOOKS_TRUST_KIND, SPEC_KERNEL_TRUST_KIND } from "../config/project-trust.js";
import { TrustStore, updateTrust } from "../config/trust.js";
import { describeSteering, projectSteering, trustItems, untrusted } from "../host/project-trust.js";
import { MCP_TRUST_KIND } from "../mcp/index.js";
import { EXIT } from "./exit-codes.js";
import { askOnce, cancelled, QuestionCancelled } from "./question.js";
import type { RunIo } from "./run.js";

interface TrustFlags {
  yes?: boolean;
  list?: boolean;
  revoke?: boolean;
}

/** A "y" at the terminal; false without one. Ctrl-C or the end of input cancel (QuestionCancelled). */
async function askYes(io: RunIo, question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  return /^y(es)?$/i.test(await askOnce(`${question} [y/N] `, io.stdout));
}

export async function trustAction(io: RunIo, flags: TrustFlags): Promise<number> {
  // --revoke would win silently: `--list --revoke` forgot the approvals it was asked only to show.
  if (flags.revoke && (flags.list || flags.yes)) {
    throw new UsageError(`give --revoke alone: --${flags.list ? "list" : "yes"} does not go with it`);
  }
  const home = relmHomeFrom(io.env);
  const steering = projectSteering(io.cwd, home, io.env);
  if (flags.revoke) {
    const kinds = [HOOKS_TRUST_KIND, MCP_TRUST_KIND, SPEC_KERNEL_TRUST_KIND];
    const store = TrustStore.load(home);
    const names = kinds.flatMap((kind) =>
      [...store.approvals(steering.project, kind).keys()].map((name) => ({ kind, name })),
    );
    if (names.length > 0)
      updateTrust(home, (s) => {
        for (const n of names) s.revoke({ project: steering.project, ...n });
      });
    io.stdout.write(
      names.length > 0
        ? `Revoked ${names.length} approval(s) in ${steering.project}: sessions will not use these files until you trust them again.\n`
        : `Nothing is approved in ${steering.project}.\n`,
    );
    return EXIT.done;
  }
  if (steering.items.length === 0) {
    io.stdout.write(
      `Nothing in ${steering.project} needs your trust (no .relm/hooks.json, project MCP servers or specs with kernel:).\n`,
    );
    return EXIT.done;
  }
  io.stdout.write(`Project files that steer relm in ${steering.project}:\n`);
  for (const line of describeSteering(steering)) io.stdout.write(`  ${line}\n`);
  const waiting = untrusted(steering);
  if (flags.list || waiting.length === 0) {
    if (waiting.length === 0) io.stdout.write("All of them are trusted as they are now.\n");
    return EXIT.done;
  }
  let yes = flags.yes === true;
  try {
    yes ||= await askYes(
      io,
      `Trust ${waiting.length === 1 ? "it as it is" : `these ${waiting.length} as they are`} now?`,
    );
  } catch (error) {
    if (!(error instanceof QuestionCancelled)) throw error;
    return cancelled(io.stderr, "trust cancelled; nothing was approved");
  }
  if (!yes) {
    io.stdout.write(
      process.stdin.isTTY
        ? "Not trusted: sessions leave them unused.\n"
        : "Not trusted (no terminal to ask in): run `relm trust --yes` to approve them as listed.\n",
    );
    return EXIT.done;
  }
  trustItems(home, steering, waiting);
  io.stdout.write(
    `Trusted ${waiting.length} item(s) in ${steering.project} (kept in ${home}/trust.json). Any change to them asks again; undo: relm trust --revoke\n`,
  );
  return EXIT.done;
}

/**
 * Line mode's question at start (a terminal only): the project's untrusted files, what each runs, and
 * whether to trust them now; a "no" leaves them unused for this session, as headless.
 */
export async function askProjectTrust(
  io: RunIo,
  home: string,
  ask: (question: string) => Promise<boolean>,
): Promise<void> {
  const steering = projectSteering(io.cwd, home, io.env);
  const waiting = untrusted(steering);
  if (waiting.length === 0) return;
  io.stdout.write(`This project has files that steer relm, not trusted as they are now:\n`);
  for (const line of describeSteering({ ...steering, items: waiting })) io.stdout.write(`  ${line}\n`);
  if (await ask("Trust them (relm trust --revoke undoes it)?")) {
    trustItems(home, steering, waiting);
    io.stdout.write("Trusted.\n");
  } else io.stdout.write("Not trusted: this session leaves them unused.\n");
}
