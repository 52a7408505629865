import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/core/prompt.js";
import { renderToolkitBlock, TOOLKIT_LINES } from "../../src/agent/kernel-api/toolkit-prompt.js";
import { localFacts as facts } from "../support/prompt-facts.js";

/** The most the toolkit may add to the system prompt, in UTF-8 bytes. */
const TOOLKIT_BLOCK_BYTES = 1500;

describe("the toolkit's prompt block", () => {
  it("adds under 1.5 KB to the system prompt, one line per function", () => {
    const block = renderToolkitBlock();
    const without = buildSystemPrompt(facts, {});
    const withIt = buildSystemPrompt(facts, { toolkit: block });
    const added = Buffer.byteLength(withIt) - Buffer.byteLength(without);
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(TOOLKIT_BLOCK_BYTES);
    // Every function of the toolkit is named, each on one line.
    for (const name of ["view", "edit", "apply_patch", "write", "grep", "glob", "tree", "run_tests"]) {
      expect(TOOLKIT_LINES.filter((l) => l.includes(`${name}(`)).length, name).toBeGreaterThanOrEqual(1);
    }
    expect(block.split("\n")).toHaveLength(TOOLKIT_LINES.length + 1);
  });

  it("sits right after the base prompt, before anything that varies by session", () => {
    const text = buildSystemPrompt(facts, { toolkit: renderToolkitBlock(), harness: "# Harness\n- x" });
    expect(text.indexOf("# Toolkit")).toBeLessThan(text.indexOf("# Harness"));
    expect(text.indexOf("# Toolkit")).toBeGreaterThan(text.indexOf("# Finishing"));
  });
});
