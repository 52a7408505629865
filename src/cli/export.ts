import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { relmHomeFrom } from "../config/config.js";
import { exportSession, resolveSessionId, sessionDir, sessionsDir } from "../session/index.js";
import { EXIT } from "./exit-codes.js";
import type { RunIo } from "./run.js";

export async function exportCommand(
  idOrPrefix: string,
  flags: { format: "md" | "html" | "ipynb" | "jsonl"; output?: string },
  io: RunIo,
): Promise<number> {
  const home = relmHomeFrom(io.env);
  const id = resolveSessionId(sessionsDir(home), idOrPrefix);
  const text = await exportSession(sessionDir(home, id), flags.format);
  if (flags.output) {
    const path = resolve(io.cwd, flags.output);
    writeFileSync(path, text);
    io.stderr.write(`wrote ${path}\n`);
  } else {
    io.stdout.write(text);
  }
  return EXIT.done;
}
