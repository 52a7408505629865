// The system prompt's environment section: this machine's Python and platform for a local kernel; for a
// kernel elsewhere (ssh, a container, Slurm …) where it runs instead, since those facts are not its.
import { describe, expect, it } from "vitest";
import { renderEnvironment } from "../../src/agent/prompt.js";
import { localFacts as local } from "../support/prompt-facts.js";

describe("the environment section", () => {
  it("names this machine's Python and platform for a local kernel", () => {
    const text = renderEnvironment(local);
    expect(text).toContain("- Platform: linux x64");
    expect(text).toContain("- Python 3.12.0 with IPython 8.0.0");
    expect(text).not.toContain("Kernel:");
  });

  it("says where a kernel elsewhere runs, instead of facts that are not its own", () => {
    const text = renderEnvironment({ ...local, remoteKernel: "ssh://gpu-box/work" });
    expect(text).toContain("- Kernel: runs through ssh://gpu-box/work, not on this machine");
    expect(text).not.toContain("Python 3.12.0");
    expect(text).not.toContain("Platform: linux x64");
    expect(text).toContain("- Working directory: /p");
  });
});
