export { byTask, whoAsks } from "./router.js";
export type { ScriptContext, ScriptItem, ScriptStep } from "./script.js";
export type { ScriptedModel, ScriptedModelOptions } from "./server.js";
export { startScriptedModel } from "./server.js";
