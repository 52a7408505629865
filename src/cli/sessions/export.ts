import { dirname, resolve } from "node:path";
import { relmHomeFrom } from "../../config/config.js";
import { exportSession, resolveAgent, sessionsDir, writeExport } from "../../session/index.js";
import { EXIT } from "../exit-codes.js";
import type { RunIo } from "../run.js";

export async function exportCommand(
  idOrPrefix: string,
  flags: { format: "md" | "html" | "ipynb" | "jsonl"; output?: string },
  io: RunIo,
): Promise<number> {
  const home = relmHomeFrom(io.env);
  // A sub-agent's id exports its own transcript (children/ID under its session).
  const { dir } = resolveAgent(sessionsDir(home), idOrPrefix);
  if (flags.output) {
    const [path, ...images] = await writeExport(dir, flags.format, resolve(io.cwd, flags.output));
    const beside =
      images.length > 0 ? ` and ${images.length} image(s) in ${dirname(images[0] as string)}` : "";
    io.stderr.write(`wrote ${path}${beside}\n`);
  } else {
    io.stdout.write(await exportSession(dir, flags.format));
  }
  return EXIT.done;
}
