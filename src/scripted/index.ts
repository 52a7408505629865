export { byTask, whoAsks } from "./router.js";
export type {
  ScriptContext,
  ScriptItem,
  ScriptStep,
  ScriptToolCall,
  StepFunction,
  WireFormatName,
} from "./script.js";
export type { CapturedRequest, ScriptedModel, ScriptedModelOptions } from "./server.js";
export { startScriptedModel } from "./server.js";
