// Imports between the folders of src/ go downward only, apart from the exceptions docs/architecture.md
// documents (scripts/check-layers.mjs holds the order and the exceptions).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { violations } from "../scripts/check-layers.mjs";

describe("layers", () => {
  it("no folder of src/ imports one above it", () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url));
    expect(violations(src)).toEqual([]);
  });
});
