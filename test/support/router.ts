export { byTask, whoAsks } from "../../src/scripted/index.js";

/** A final answer that repeats what the last cell printed. */
export const echoLastCell = (ctx: { lastToolResult?: string }) => ({
  text: ctx.lastToolResult?.trim() ?? "",
});
