// When an agent's first request waits for its kernel on account of skills (Conversation.awaitsKernel):
// only when the host could not tell which skills are shadowed, or the kernel runs elsewhere. And what the
// kernel then reports stands for every later rebuild of the prompt, where the host guessed wrong too.
import { describe, expect, it } from "vitest";
import { Conversation } from "../../src/agent/core/conversation.js";
import type { EnvironmentFacts } from "../../src/agent/core/prompt.js";
import { localFacts } from "../support/prompt-facts.js";

function conversation(facts: EnvironmentFacts): Conversation {
  return Conversation.start([{ ...facts }, { toolkit: "", specs: [] }], () => undefined);
}

const python = { version: "3.12.0", ipython: "8.0.0" };

describe("a prompt's skill facts", () => {
  it("need no kernel where the host told which skills are shadowed; otherwise they wait for it", () => {
    expect(conversation({ ...localFacts, skillPackages: true, unusableSkills: [] }).awaitsKernel).toBe(false);
    expect(conversation({ ...localFacts, skillPackages: true }).awaitsKernel).toBe(true);
    const remote = { ...localFacts, python: undefined, remoteKernel: "ssh://box/w", skillPackages: true };
    expect(conversation(remote).awaitsKernel).toBe(true);
    expect(conversation(localFacts).awaitsKernel).toBe(false);
  });

  it("follow the kernel's report at the next rebuild where the host's look was wrong", () => {
    const c = conversation({ ...localFacts, skillPackages: true, unusableSkills: [] });
    expect(c.system).not.toMatch(/cannot be imported/);
    c.kernelStarted(python, ["/p/.relm/skills/my-json"]);
    const renewed = c.renew(undefined);
    expect(renewed).toContain(
      "- Skill my_json cannot be imported here: `import my_json` gives another module",
    );
  });
});
