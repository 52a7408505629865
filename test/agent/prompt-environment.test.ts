// The system prompt's environment section: this machine's platform for a local kernel, where a kernel
// elsewhere (ssh, a container, Slurm …) runs instead; and the kernel's Python as it runs cells, so IPython
// syntax is promised only where the kernel has IPython (issue 19).
import { describe, expect, it } from "vitest";
import { BASE_PROMPT, buildSystemPrompt, renderEnvironment } from "../../src/agent/core/prompt.js";
import { IPYTHON_TOOL } from "../../src/agent/core/tool.js";
import { localFacts as local } from "../support/prompt-facts.js";

describe("the environment section", () => {
  it("names this machine's Python and platform for a local kernel", () => {
    const text = renderEnvironment(local);
    expect(text).toContain("- Platform: linux x64");
    expect(text).toContain("- Python 3.12.0 with IPython 8.0.0: IPython syntax works");
    expect(text).not.toContain("Kernel:");
  });

  it("says where a kernel elsewhere runs, instead of this machine's platform", () => {
    const text = renderEnvironment({ ...local, remoteKernel: "ssh://gpu-box/work", python: undefined });
    expect(text).toContain("- Kernel: runs through ssh://gpu-box/work, not on this machine");
    expect(text).not.toContain("Python 3.12.0");
    expect(text).not.toContain("Platform: linux x64");
    expect(text).toContain("- Working directory: /p");
    // Not started yet: nothing is promised about IPython.
    expect(text).toContain("- Python: not known yet (the kernel had not started)");
    expect(text).not.toContain("IPython syntax works");
  });

  it("promises no IPython syntax to a kernel without IPython, local or elsewhere", () => {
    const plain = { version: "3.11.2", ipython: null };
    for (const facts of [
      { ...local, python: plain },
      { ...local, remoteKernel: "container://", python: plain },
    ]) {
      const prompt = buildSystemPrompt(facts);
      expect(prompt).toContain(
        "- Python 3.11.2 without IPython: plain Python only. `!commands`, `%magics` and `%%bash` cells are syntax errors here; run shell commands with subprocess.run(...)",
      );
      expect(renderEnvironment(facts)).not.toContain("IPython syntax works");
      expect(prompt).not.toContain("with IPython");
    }
    // The parts every prompt and request share promise IPython syntax only where the kernel has it.
    expect(BASE_PROMPT).toContain(
      "Where the kernel has IPython (the Environment section says), IPython syntax works",
    );
    expect(IPYTHON_TOOL.description).toContain("only where the kernel has IPython");
    expect(IPYTHON_TOOL.description).not.toMatch(/Supports !shell/);
  });
});
