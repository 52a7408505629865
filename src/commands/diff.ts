// /diff: what this session changed in the files, against its first checkpoint (taken before its first
// turn that ran code). The host writes the patch to a file of the session's; the UI opens it in the
// pager, the other front ends say which files changed and where the patch is.

import { defineCommand } from "./types.js";

export const diffCommand = defineCommand<null>({
  name: "diff",
  description: "the files this session changed, against its start (the UI opens the patch in $PAGER)",
  parse: () => ({ args: null }),
  act: async (ctx) => {
    if (!(await ctx.live())) {
      ctx.say("no file changes yet: the session starts with your first message", "dim");
      return;
    }
    const result = await ctx.call("diff", {});
    if ("error" in result) {
      ctx.say(result.error, "warn");
      return;
    }
    if ("none" in result) {
      ctx.say(result.none, "dim");
      return;
    }
    if (result.files.length === 0 || result.file === null) {
      ctx.say(`no file changes since the session's start (before turn ${result.fromTurn})`, "dim");
      return;
    }
    const added = result.files.reduce((n, f) => n + f.added, 0);
    const removed = result.files.reduce((n, f) => n + f.removed, 0);
    const summary = `${result.files.length} file(s) changed since the session's start: +${added} −${removed}`;
    if (ctx.page) {
      ctx.say(summary, "dim");
      await ctx.page(result.file);
      return;
    }
    ctx.say(
      [
        summary,
        ...result.files.map((f) => `  ${f.path}  +${f.added} −${f.removed}`),
        `the patch: ${result.file}`,
      ].join("\n"),
    );
  },
});
