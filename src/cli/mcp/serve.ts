import type { Command } from "commander";
import type { SessionSpec } from "../../config/options.js";
import { addOptions } from "../command-options.js";
import type { RunIo } from "../run.js";

type SetExit = (code: number) => void;

/**
 * `relm mcp serve`: relm as an MCP server on stdio (docs/mcp-server.md). Added to the `relm mcp` group
 * whoever registers first creates (the MCP client's commands live in the same group).
 */
export function registerMcpServeCommand(program: Command, io: RunIo, setExit: SetExit): void {
  const mcp =
    program.commands.find((c) => c.name() === "mcp") ??
    program.command("mcp").description("MCP: servers relm's kernels can call, and relm as an MCP server");
  addOptions(
    mcp
      .command("serve")
      .description(
        "serve relm's tasks to MCP clients (Claude Code, Codex…) on stdio; budget flags cap every task",
      ),
    ["hosts", "model", "session"],
  ).action(async (flags: SessionSpec) => {
    const [{ serveMcp }, { checkHostFlags, hostSpecOf, limitsOf }] = await Promise.all([
      import("../../mcp-server/serve.js"),
      import("../host-args.js"),
    ]);
    checkHostFlags(flags);
    setExit(
      await serveMcp({
        env: io.env,
        cwd: io.cwd,
        stderr: io.stderr,
        model: { provider: flags.provider, baseUrl: flags.baseUrl, model: flags.model },
        hostSpec: hostSpecOf(flags, io.cwd, { budgets: false }),
        caps: limitsOf(flags),
      }),
    );
  });
}
