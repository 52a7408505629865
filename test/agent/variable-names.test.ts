// A user's variable shares the kernel's namespace with relm's functions and Python's built-ins: the
// lists of those names in src/agent/core/variable-names.ts must be the real kernel's, or a name slips by.

import { describe, expect, it } from "vitest";
import {
  KERNEL_API_NAMES,
  reservedVariableProblem,
  shadowedBuiltinWarning,
} from "../../src/agent/core/variable-names.js";
import { isVariableName } from "../../src/agent/core/variables.js";
import { useKernels } from "../kernel/helpers.js";

const start = useKernels();

describe("names a variable would hide", () => {
  it("are the real kernel's: relm's functions refused, every other name of its namespace and builtins warned of", async () => {
    const kernel = await start();
    // The first cell sees the namespace as the model's first cell does.
    const seen = await kernel.execute(
      "print(' '.join(sorted(k for k in globals() if not k.startswith('_'))))",
    );
    const names = seen.output.trim().split(" ");
    const facts = await kernel.execute(
      "import builtins, relm.api\n" +
        "print(' '.join(sorted(relm.api.EXPORTS)))\n" +
        "print(' '.join(sorted(n for n in dir(builtins) if not n.startswith('_'))))",
    );
    const [api, builtins] = facts.output.trim().split("\n") as [string, string];
    expect([...KERNEL_API_NAMES].sort()).toEqual(api.split(" "));
    // Keywords (True, None) are refused as names already.
    for (const name of [...names, ...builtins.split(" ")].filter(isVariableName)) {
      const refused = reservedVariableProblem(name, "x") !== undefined;
      const warned = shadowedBuiltinWarning(name, "x") !== undefined;
      expect(refused || warned, `${name}: neither refused nor warned of`).toBe(true);
    }
    expect(names).toContain("rlm");
    expect(builtins.split(" ")).toContain("print");
    expect(reservedVariableProblem("data", "x")).toBeUndefined();
    expect(shadowedBuiltinWarning("data", "x")).toBeUndefined();
  }, 120_000);
});
