// `relm web`: starts the server, says where it is (the address with its token, and how to reach it from
// elsewhere without exposing it), opens a browser when asked, and serves until interrupted.
import { relmHomeFrom } from "../config/config.js";
import { UsageError, UserError } from "../config/errors.js";
import { openBrowser } from "../llm/auth/open.js";
import { isLoopback, newToken } from "./auth.js";
import { startWebServer } from "./server.js";

const DEFAULT_PORT = 8765;

/** `relm web`'s flags, as commander and the lean entry (cli/web-entry.ts) give them. */
export interface WebFlags {
  port?: string;
  host?: string;
  open?: boolean;
}

interface WebIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

function portOf(given: string | undefined): number {
  if (given === undefined) return DEFAULT_PORT;
  const port = Number(given);
  if (!/^\d+$/.test(given) || port > 65535)
    throw new UsageError(`--port ${given}: a port is a whole number from 0 to 65535 (0: any free port)`);
  return port;
}

/** RELM_WEB_TOKEN fixes the token (a server restarted keeps its pages' cookies); else a fresh one. */
function tokenOf(env: NodeJS.ProcessEnv): string {
  const fixed = env.RELM_WEB_TOKEN;
  if (fixed === undefined || fixed === "") return newToken();
  if (!/^[\w-]{24,200}$/.test(fixed))
    throw new UserError(
      "RELM_WEB_TOKEN must be at least 24 letters, digits, - or _ (or unset it for a random token)",
    );
  return fixed;
}

export async function runWeb(flags: WebFlags, io: WebIo): Promise<number> {
  const port = portOf(flags.port);
  const host = flags.host ?? "127.0.0.1";
  if (host.trim() === "") throw new UsageError("--host needs an address to listen on, like 127.0.0.1");
  const home = relmHomeFrom(io.env);
  let server: Awaited<ReturnType<typeof startWebServer>>;
  try {
    server = await startWebServer({ home, env: io.env, host, port, token: tokenOf(io.env) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UserError(`port ${port} is in use; choose another with --port N (--port 0: any free port)`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UserError(
        `--host ${host} is not an address of this machine; give one of its own (default 127.0.0.1, docs/web.md)`,
      );
    if (code === "EACCES")
      throw new UserError(`port ${port} needs privileges; choose one above 1023 with --port N`);
    throw error;
  }
  io.stdout.write(`relm web: the sessions of ${home}\n  ${server.url}\n`);
  if (!isLoopback(host)) {
    const local = `http://127.0.0.1:${server.port}/`;
    io.stderr.write(
      `relm web: listening on ${host}: whoever can reach it and has the token can read and steer your sessions.\n` +
        `  Safer: keep the default (127.0.0.1) and tunnel from your laptop:\n` +
        `    ssh -N -L ${server.port}:127.0.0.1:${server.port} YOU@THIS-MACHINE\n` +
        `  then open ${local} with the token above.\n`,
    );
  }
  if (flags.open && !openBrowser(server.url, io.env))
    io.stderr.write("relm web: no browser to open here; open the address above yourself\n");
  io.stderr.write("relm web: Ctrl-C stops the server (the sessions keep running)\n");
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  return 0;
}
