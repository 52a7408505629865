import type { Command } from "commander";
import { UsageError } from "../config/errors.js";
import type { SessionSpec } from "../config/options.js";
import { addOptions } from "./command-options.js";
import type { RunIo } from "./run.js";

type SetExit = (code: number) => void;

/**
 * `relm acp`: an Agent Client Protocol agent on stdio for editors (docs/editors.md). `relm acp login`
 * is `relm login`, for editors that run an agent's sign-in in a terminal.
 */
export function registerAcpCommand(program: Command, io: RunIo, setExit: SetExit): void {
  addOptions(
    program
      .command("acp")
      .description("serve editors (Zed, JetBrains, Neovim) over the Agent Client Protocol on stdio")
      .argument("[action]", '"login": sign in, as relm login (editors run it in a terminal)'),
    ["hosts", "model", "session"],
  ).action(async (action: string | undefined, flags: SessionSpec) => {
    if (action === "login") {
      setExit(await (await import("./front-end.js")).loginAction(flags, io));
      return;
    }
    if (action !== undefined)
      throw new UsageError(`relm acp ${action}: unknown action (relm acp, relm acp login)`);
    const [{ runAcp }, { checkHostFlags, hostSpecOf }, { registerSlashCommands }] = await Promise.all([
      import("../acp/agent.js"),
      import("./host-args.js"),
      import("./slash-commands.js"),
    ]);
    registerSlashCommands();
    checkHostFlags(flags);
    const hostSpec = hostSpecOf(flags, io.cwd, { budgets: true });
    setExit(await runAcp({ env: io.env, hostSpec, stderr: io.stderr }));
  });
}
