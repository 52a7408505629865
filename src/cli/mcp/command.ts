import type { Command } from "commander";
import type { SessionSpec } from "../../config/options.js";
import { addOptions, collect } from "../command-options.js";
import type { RunIo } from "../run.js";

type SetExit = (code: number) => void;

/**
 * `relm mcp list|add|remove|test|approve|revoke`: the MCP servers kernels can call (docs/mcp.md), and
 * `relm mcp serve`: relm as an MCP server on stdio (docs/mcp-server.md). The work is loaded only when a
 * command runs.
 */
export function registerMcpCommands(program: Command, io: RunIo, setExit: SetExit): void {
  const actions = () => import("./actions.js");
  const trust = () => import("./trust.js");
  const mcp = program
    .command("mcp")
    .description("MCP: servers relm's kernels can call, and relm as an MCP server");

  mcp
    .command("list")
    .description(
      "the configured servers (project's .relm/mcp.json and .mcp.json, then $RELM_HOME/mcp.json), and which project servers you approved",
    )
    .option("--json", "one JSON object per server")
    .option("--mcp-config <file>", "also a session's servers file (as relm run --mcp-config)", collect, [])
    .action(async (flags: { json?: boolean; mcpConfig?: string[] }) =>
      setExit(await (await actions()).listAction(io, flags)),
    );

  mcp
    .command("approve")
    .description(
      "let sessions start project servers (.mcp.json, .relm/mcp.json) as they are configured now; prints what each runs",
    )
    .argument("[names...]", "the servers to approve")
    .option("--all", "every server of this project's files")
    .option("--outside-sandbox", "let it run outside the sandbox of a --sandbox session (default: inside)")
    .option(
      "--mcp-config <file>",
      "approve servers of this --mcp-config file inside the project",
      collect,
      [],
    )
    .action(async (names: string[], flags) => setExit(await (await trust()).approveAction(io, names, flags)));

  mcp
    .command("revoke")
    .description("forget approvals of this project's servers: sessions will not start them")
    .argument("[names...]", "the servers")
    .option("--all", "every approval of this project")
    .action(async (names: string[], flags: { all?: boolean }) =>
      setExit(await (await trust()).revokeAction(io, names, flags)),
    );

  mcp
    .command("add")
    .description(
      "add a server: relm mcp add NAME -- COMMAND [ARGS...] (stdio), or relm mcp add NAME URL (HTTP)",
    )
    .argument("<name>", "what kernels call it: mcp.NAME.TOOL(...)")
    .argument("<command-or-url>", "the command that starts it, or its http(s) URL")
    .argument("[args...]", "the command's arguments (put -- before the command when they start with -)")
    .option("-s, --scope <scope>", "user ($RELM_HOME/mcp.json) or project (.mcp.json)", "user")
    .option("-t, --transport <transport>", "stdio, http (Streamable HTTP, falls back to SSE) or sse")
    .option("-e, --env <KEY=VALUE>", "environment variable for the server only (repeatable)", collect, [])
    .option("-H, --header <'Name: value'>", "HTTP header sent to the server only (repeatable)", collect, [])
    .option("--force", "replace a server of the same name in that file")
    .option(
      "--outside-sandbox",
      'let it run outside the sandbox of a --sandbox session (user: "sandbox": false; project: with its approval)',
    )
    .action(async (name: string, target: string, args: string[], flags) =>
      setExit(await (await actions()).addAction(io, name, target, args, flags)),
    );

  mcp
    .command("remove")
    .description("remove a server from the file that configures it")
    .argument("<name>", "the server's name")
    .option("-s, --scope <scope>", "user or project, when both configure it")
    .action(async (name: string, flags: { scope?: string }) =>
      setExit(await (await actions()).removeAction(io, name, flags)),
    );

  mcp
    .command("test")
    .description(
      "start a server, list its tools and stop it (its tool names are cached for the next session's prompt)",
    )
    .argument("<name>", "the server's name")
    .option("--json", "the result as one JSON object")
    .action(async (name: string, flags: { json?: boolean }) =>
      setExit(await (await actions()).testAction(io, name, flags)),
    );

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
