export { byTask, whoAsks } from "../../src/llm/scripted/index.js";
