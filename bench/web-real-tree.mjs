// The real thing for bench/web.mjs's tree, as far as this machine goes: a session run by `relm run
// --detach` against the scripted model whose code calls rlm.map over N items, each child a real agent
// with its own kernel running one cell. At most `parallel` run at once (each kernel ~70 MB), so the tree
// grows to N over the run rather than standing at N, and its events come as fast as the children work.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { byTask, startScriptedModel } from "../dist/scripted/index.js";
import { ROOT, scriptedEnv } from "./lib.mjs";

const relm = join(ROOT, "dist/cli/relm.cjs");

export async function startRealFanOut(n, parallel) {
  const model = await startScriptedModel({
    script: byTask({
      "TREE: fan out": [
        { code: `r = rlm.map("LEAF: one cell", list(range(${n})), max_parallel=${parallel})\nprint(len(r))` },
        (ctx) => ({ text: ctx.lastToolResult?.trim() ?? "" }),
      ],
      "LEAF: one cell": [{ code: "print(item * 2)" }, { text: "done" }],
    }),
  });
  const { home, env } = scriptedEnv(model, "relm-bench-web-real-");
  const id = execFileSync(process.execPath, [relm, "run", "--detach", "TREE: fan out"], {
    env,
    encoding: "utf8",
  }).trim();
  return {
    id,
    home,
    async close() {
      execFileSync(process.execPath, [relm, "shutdown"], { env, stdio: "ignore" });
      await model.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
