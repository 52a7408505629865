export { byTask, whoAsks } from "../../src/llm/scripted/index.js";

/** A final answer that repeats what the last cell printed. */
export const echoLastCell = (ctx: { lastToolResult?: string }) => ({
  text: ctx.lastToolResult?.trim() ?? "",
});
