// Every method the Python side of a kernel (python/relm/) calls on the host that owns it, by name. The
// dispatcher (calls.ts) answers only these, and test/agent/kernel-methods.test.ts checks the names
// the Python sources call against this list and this list against the dispatcher, so neither side can
// grow a method the other does not know.
export const KERNEL_METHODS = [
  "submit",
  "llm",
  "llm.batch",
  "llm.cancel",
  "rlm.spawn",
  "rlm.wait",
  "rlm.status",
  "rlm.send",
  "rlm.cancel",
  "rlm.list",
  "rlm.map",
  "rlm.map_cancel",
  "msg.send",
  "msg.inbox",
  "harness.state",
  "harness.log",
  "harness.propose",
  "harness.refine",
  "harness.apply",
  "harness.save_skill",
  "harness.used",
  "harness.revert",
  "schedule.add",
  "schedule.list",
  "schedule.cancel",
  "goal.get",
  "goal.set",
  "goal.progress",
  "goal.done",
  "plan.set",
  "plan.get",
  "mcp.servers",
  "mcp.tools",
  "mcp.call",
  "mcp.resources",
  "mcp.resource_templates",
  "mcp.read_resource",
  "mcp.prompts",
  "mcp.get_prompt",
  "mcp.cancel",
  "web.fetch",
  "web.search",
  "web.cancel",
  "look.accepts",
  "look.attach",
  "toolkit.file_edit",
  "toolkit.gates",
  "approval.request",
  "approval.cancel",
] as const;

type KernelMethod = (typeof KERNEL_METHODS)[number];

const KNOWN = new Set<string>(KERNEL_METHODS);

export function isKernelMethod(name: string): name is KernelMethod {
  return KNOWN.has(name);
}
