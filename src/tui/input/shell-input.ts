// `!command` in the input: the command runs in the session's kernel between turns (host method `shell`,
// agent/core/shell.ts). Its cell and output come back as the session's events, shown like any cell, and
// the model reads them with the next message.
import type { AppApi } from "../app-api.js";

/** True when the typed text is a shell command (`!ls`), not a message that starts with "!". */
export function isShellInput(text: string): boolean {
  return /^!\S/.test(text.trim());
}

/** Runs `!command`; says why not when it cannot run now (the host refuses it while a turn runs). */
export async function runShellInput(api: AppApi, text: string): Promise<void> {
  const command = text.trim().slice(1).trim();
  if (!(await api.ensureLive())) {
    api.note(
      api.theme.dim("!command runs in the session's kernel: send a first message to start the session"),
    );
    return;
  }
  try {
    await api.link.call("shell", { command });
  } catch (error) {
    api.note(api.theme.warn(`!${command}: ${(error as Error).message}`));
  }
}
