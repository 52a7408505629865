// Opens the sign-in page in the person's browser where there is one. RELM_OAUTH_OPEN names another
// command (it gets the URL as its argument; "none" opens nothing); the URL is always printed as well.
import { spawn } from "node:child_process";

function command(env: NodeJS.ProcessEnv): [string, string[]] | undefined {
  const hook = env.RELM_OAUTH_OPEN;
  if (hook !== undefined) {
    if (hook.trim() === "" || hook.trim() === "none") return undefined;
    return ["/bin/sh", ["-c", `${hook} "$1"`, "sh"]];
  }
  if (process.platform === "darwin") return ["open", []];
  if (process.platform === "win32") return ["cmd", ["/c", "start", '""']];
  // Over ssh without a forwarded display, a browser would open (if at all) on nobody's screen.
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ["xdg-open", []];
  return undefined;
}

/** Whether a browser (or the hook) was started; its failure is not an error: the URL is printed. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): boolean {
  const found = command(env);
  if (!found) return false;
  try {
    const child = spawn(found[0], [...found[1], url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
