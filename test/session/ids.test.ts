import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AmbiguousSessionIdError,
  newSessionId,
  resolveAgent,
  resolveSessionId,
  SessionNotFoundError,
} from "../../src/session/index.js";
import { tempDir } from "./helpers.js";

describe("newSessionId", () => {
  it("makes short, typeable, unique ids", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newSessionId();
      expect(id).toMatch(/^[0-9a-hjkmnp-tv-z]{8}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2000);
  });
});

describe("resolveSessionId", () => {
  function sessions(...ids: string[]): string {
    const dir = tempDir();
    for (const id of ids) mkdirSync(join(dir, id));
    return dir;
  }

  it("accepts an exact id or a unique prefix", () => {
    const dir = sessions("abc12345", "abd00000", "xyz99999");
    expect(resolveSessionId(dir, "abc12345")).toBe("abc12345");
    expect(resolveSessionId(dir, "abc")).toBe("abc12345");
    expect(resolveSessionId(dir, "x")).toBe("xyz99999");
    expect(resolveSessionId(dir, " ABD ")).toBe("abd00000");
  });

  it("reads o, i and l as Crockford does", () => {
    const dir = sessions("a0b1c2d3");
    expect(resolveSessionId(dir, "AOBL")).toBe("a0b1c2d3");
  });

  it("prefers an exact id that is also a prefix of another", () => {
    const dir = sessions("abc", "abcdefgh");
    expect(resolveSessionId(dir, "abc")).toBe("abc");
  });

  it("lists the candidates of an ambiguous prefix, at most 10", () => {
    const dir = sessions("abc12345", "abd00000");
    const err = (() => {
      try {
        resolveSessionId(dir, "ab");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AmbiguousSessionIdError);
    expect((err as Error).message).toContain("abc12345");
    expect((err as Error).message).toContain("abd00000");

    const many = sessions(...Array.from({ length: 15 }, (_, i) => `zz${String(i).padStart(6, "0")}`));
    try {
      resolveSessionId(many, "zz");
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AmbiguousSessionIdError);
      expect((e as AmbiguousSessionIdError).matches).toHaveLength(15);
      expect((e as Error).message).toContain("and 5 more");
      expect((e as Error).message).not.toContain("zz000014");
    }
  });

  it("reports a missing session and how to list sessions", () => {
    const dir = sessions("abc12345");
    writeFileSync(join(dir, "qfile"), "not a session");
    expect(() => resolveSessionId(dir, "q")).toThrow(SessionNotFoundError);
    expect(() => resolveSessionId(dir, "q")).toThrow(/relm agents/);
    expect(() => resolveSessionId(dir, "")).toThrow(SessionNotFoundError);
    expect(() => resolveSessionId(join(dir, "nope"), "abc")).toThrow(SessionNotFoundError);
  });
});

describe("resolveAgent", () => {
  it("finds a sub-agent at any depth by id or prefix, with its root session; sessions come first", () => {
    const dir = tempDir();
    for (const path of [
      "s1aaaaaa/children/c1bbbbbb/children/c2cccccc",
      "s2dddddd/children/c3eeeeee",
      "c1zzzzzz",
      "s1aaaaaa/children/e1ffffff",
      "s2dddddd/children/e2gggggg",
    ])
      mkdirSync(join(dir, path), { recursive: true });
    expect(resolveAgent(dir, "s1a")).toEqual({ root: "s1aaaaaa", dir: join(dir, "s1aaaaaa") });
    expect(resolveAgent(dir, "c2")).toEqual({
      root: "s1aaaaaa",
      dir: join(dir, "s1aaaaaa/children/c1bbbbbb/children/c2cccccc"),
    });
    expect(resolveAgent(dir, "C3E")).toEqual({
      root: "s2dddddd",
      dir: join(dir, "s2dddddd/children/c3eeeeee"),
    });
    // A prefix a session has is that session, though a sub-agent has it too.
    expect(resolveAgent(dir, "c1")).toEqual({ root: "c1zzzzzz", dir: join(dir, "c1zzzzzz") });
    expect(resolveAgent(dir, "c1bbbbbb").root).toBe("s1aaaaaa");
    expect(() => resolveAgent(dir, "e")).toThrow(/"e" is ambiguous: e1ffffff, e2gggggg/);
    expect(() => resolveAgent(dir, "zz")).toThrow(SessionNotFoundError);
  });
});
