// /web in the terminal UI: the address of `relm web` for this session. The server is its own process
// (`relm web --port 0`, detached, as a session host is), so it outlives the UI and serves every session
// of $RELM_HOME; the UI starts it once and reuses it while it answers: its pid and address are kept in
// $RELM_HOME/web.json (0600, as the address carries the token), its output in web.log.
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../cli/relm.cjs", import.meta.url));
const START_MS = 20_000;

interface WebRecord {
  pid: number;
  url: string;
}

function recorded(home: string): WebRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(home, "web.json"), "utf8")) as Partial<WebRecord>;
    return typeof r.pid === "number" && typeof r.url === "string" ? { pid: r.pid, url: r.url } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the recorded server is up and is relm web with that token (not a reused pid or port). */
async function answers(r: WebRecord): Promise<boolean> {
  try {
    process.kill(r.pid, 0);
  } catch {
    return false;
  }
  const url = new URL(r.url);
  const token = url.searchParams.get("token") ?? "";
  try {
    const res = await fetch(`${url.origin}/api/sessions`, {
      headers: { authorization: `token ${token}` },
      signal: AbortSignal.timeout(3000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** The running server's address with its token, started when none answers. */
export async function webAddress(
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; started: boolean }> {
  const known = recorded(home);
  if (known && (await answers(known))) return { url: known.url, started: false };
  const logPath = join(home, "web.log");
  const log = openSync(logPath, "w", 0o600);
  const child = spawn(process.execPath, [MAIN, "web", "--port", "0"], {
    env: { ...env, NO_COLOR: "1" },
    detached: true,
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  child.unref();
  const deadline = Date.now() + START_MS;
  while (Date.now() < deadline) {
    const out = readFileSync(logPath, "utf8");
    const url = /http:\/\/\S+\?token=\S+/.exec(out)?.[0];
    if (url && child.pid !== undefined) {
      writeFileSync(join(home, "web.json"), JSON.stringify({ pid: child.pid, url }), { mode: 0o600 });
      return { url, started: true };
    }
    if (exited) throw new Error(`relm web did not start: ${out.trim().split("\n").at(-1) ?? "no output"}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`relm web did not say its address within ${START_MS / 1000} s (see ${logPath})`);
}
