import type { Command } from "commander";
import type { RunIo } from "./run.js";

type SetExit = (code: number) => void;

/** `relm web`: the sessions in a browser (docs/web.md); the server is loaded only when the command runs. */
export function registerWebCommand(program: Command, io: RunIo, setExit: SetExit): void {
  program
    .command("web")
    .description("every session live in a browser: a local server, its address printed with a token")
    .option("--port <n>", "the port to listen on (default 8765; 0: any free port)")
    .option(
      "--host <addr>",
      "the address to listen on (default 127.0.0.1; see docs/web.md before changing it)",
    )
    .option("--open", "open the address in a browser")
    .action(async (flags: { port?: string; host?: string; open?: boolean }) => {
      const { runWeb } = await import("../webui/run.js");
      setExit(await runWeb(flags, io));
    });
}
