import { describe, expect, it } from "vitest";
import { KernelCallError } from "../../src/agent/kernel-api/errors.js";
import { handleToolkitRequest } from "../../src/agent/kernel-api/toolkit.js";
import type { JournalBody } from "../../src/session/types.js";

function agent(gates: string[] = []) {
  const recorded: JournalBody[] = [];
  return { recorded, tree: { gates }, record: (body: JournalBody) => recorded.push(body) };
}

describe("toolkit.* calls from the kernel", () => {
  it("journals a changed file with its diff, cut when huge", () => {
    const a = agent();
    const diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n";
    handleToolkitRequest(a, "toolkit.file_edit", {
      path: "x.py",
      action: "edit",
      diff,
      added: 1,
      removed: 1,
    });
    handleToolkitRequest(a, "toolkit.file_edit", {
      path: "y.py",
      action: "move",
      from: "x.py",
      diff: "x".repeat(50_000),
      added: -3,
    });
    expect(a.recorded[0]).toEqual({
      type: "file_edit",
      path: "x.py",
      action: "edit",
      added: 1,
      removed: 1,
      diff,
    });
    expect(a.recorded[1]).toMatchObject({ path: "y.py", from: "x.py", action: "move", added: 0, removed: 0 });
    expect((a.recorded[1] as { diff: string }).diff).toMatch(/\[diff cut at 40000 chars\]\n$/);
  });

  it("refuses what it does not know, and answers the gates", () => {
    const a = agent(["npm test", "npm run lint"]);
    expect(() =>
      handleToolkitRequest(a, "toolkit.file_edit", { path: "x", action: "chmod", diff: "" }),
    ).toThrow(KernelCallError);
    expect(() => handleToolkitRequest(a, "toolkit.file_edit", { action: "edit", diff: "" })).toThrow(
      /path is required/,
    );
    expect(() => handleToolkitRequest(a, "toolkit.nope", {})).toThrow(/no method/);
    expect(handleToolkitRequest(a, "toolkit.gates", {})).toEqual({ gates: ["npm test", "npm run lint"] });
    expect(a.recorded).toHaveLength(0);
  });
});
