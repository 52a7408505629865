// `relm trust`'s words; its work (trust-command.ts) is loaded only when it runs.
import type { Command } from "commander";
import type { RunIo } from "./run.js";

type SetExit = (code: number) => void;

export function registerTrustCommand(program: Command, io: RunIo, setExit: SetExit): void {
  program
    .command("trust")
    .description(
      "review and approve this project's files that steer relm (.relm/hooks.json, .mcp.json servers, specs with kernel:)",
    )
    .option("-y, --yes", "approve what is listed without asking")
    .option("--list", "only list them and whether each is trusted")
    .option("--revoke", "forget every approval of this project")
    .action(async (flags: { yes?: boolean; list?: boolean; revoke?: boolean }) =>
      setExit(await (await import("./trust-command.js")).trustAction(io, flags)),
    );
}
