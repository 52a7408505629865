import { describe, expect, it } from "vitest";
import { MCP_BLOCK_CHARS, pythonName, renderMcpBlock } from "../../src/agent/mcp-prompt.js";
import type { CatalogEntry } from "../../src/mcp/index.js";

function server(
  name: string,
  tools: number,
  summary = "Does one useful thing to the thing it is given.",
): CatalogEntry {
  return {
    name,
    transport: "stdio",
    tools: Array.from({ length: tools }, (_, i) => ({ name: `${name}-tool-${i}`, summary })),
  };
}

describe("the MCP block of the system prompt", () => {
  it("is absent without servers", () => {
    expect(renderMcpBlock([])).toBeUndefined();
  });

  it("lists every tool with its summary when it fits; unknown and unusable servers say so", () => {
    const block = renderMcpBlock([
      server("files", 2),
      { name: "web-api", transport: "http", tools: undefined },
      { name: "off", transport: "stdio", tools: undefined, problem: "it is disabled in /p/.mcp.json" },
    ]) as string;
    expect(block).toContain('- `mcp.files` (stdio), 2 tools:\n  - files_tool_0: "Does one useful thing');
    expect(block).toContain("- `mcp.web_api` (http): tools not yet known, call mcp.web_api.tools()");
    expect(block).toContain('- `mcp.off`: unusable ("it is disabled in /p/.mcp.json")');
  });

  it("stays within its limit: summaries while they fit, then names only, every server named", () => {
    const catalog = [server("a", 40), server("b", 40), server("c", 3)];
    const block = renderMcpBlock(catalog) as string;
    expect(block.length).toBeLessThanOrEqual(MCP_BLOCK_CHARS);
    for (const name of ["a", "b", "c"]) expect(block).toContain(`- \`mcp.${name}\` (stdio)`);
    // Summaries went round robin: every server has its first tool described.
    for (const name of ["a", "b", "c"]) expect(block).toContain(`  - ${name}_tool_0: "Does one`);
    expect(block).toMatch(/ {2}- also: a_tool_\d+, /);
    // Every tool is still named.
    for (let i = 0; i < 40; i++) expect(block).toContain(`a_tool_${i}`);
    expect(renderMcpBlock(catalog)).toBe(block);
  });

  it("past the limit even for names, the longest lists are cut and the rest counted", () => {
    const block = renderMcpBlock([server("huge", 2000), server("small", 2)]) as string;
    expect(block.length).toBeLessThanOrEqual(MCP_BLOCK_CHARS);
    expect(block).toMatch(/… \d+ more \(mcp\.huge\.tools\(\)\)/);
    expect(block).toContain("small_tool_1");
  });

  it("spells names as Python attributes", () => {
    expect(pythonName("get-env")).toBe("get_env");
    expect(pythonName("2fa.check")).toBe("_2fa_check");
    expect(pythonName("import")).toBe("import_");
  });
});
