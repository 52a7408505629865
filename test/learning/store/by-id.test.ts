// The one rule for naming an entry or revision by hand (src/learning/store/by-id.ts): an exact id wins
// over prefixes, a prefix must name one item, and the two failures are user errors worded alike.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isUserError, userExitCode } from "../../../src/config/errors.js";
import {
  byIdOrPrefix,
  HarnessStore,
  type IdLookup,
  idMatches,
  scopeLocation,
} from "../../../src/learning/store/index.js";
import { tempDir } from "../../support/cli.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The error `work` throws (it must throw). */
function thrown(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error("expected an error");
}

const names: IdLookup<string> = {
  noun: "thing",
  id: (s) => s,
  where: "in the box",
  narrow: "give more characters",
  listing: "`ls` lists them",
};

describe("byIdOrPrefix", () => {
  it("prefers an exact id to the longer ids it is a prefix of", () => {
    expect(idMatches(["ab", "abc", "abd"], "ab", (s) => s)).toEqual(["ab"]);
    expect(idMatches(["ab", "abc", "abd"], "abc", (s) => s)).toEqual(["abc"]);
    expect(idMatches(["ab", "abc", "abd"], "a", (s) => s)).toEqual(["ab", "abc", "abd"]);
    expect(byIdOrPrefix(["ab", "abc", "abd"], "ab", names)).toBe("ab");
    expect(byIdOrPrefix(["ab", "xyz"], "x", names)).toBe("xyz");
  });

  it("says where it looked when nothing matches (exit 1) and lists the candidates of a prefix (exit 2)", () => {
    const none = thrown(() => byIdOrPrefix(["ab"], "zz", names));
    expect(none.message).toBe('no thing "zz" in the box; `ls` lists them');
    expect(isUserError(none) && userExitCode(none)).toBe(1);
    const several = thrown(() =>
      byIdOrPrefix(["abc", "abd"], "ab", { ...names, shown: (s) => `${s} (box)` }),
    );
    expect(several.message).toBe('thing "ab" is ambiguous: abc (box), abd (box); give more characters');
    expect(isUserError(several) && userExitCode(several)).toBe(2);
    // A kernel's harness call sees both as a LookupError: the host passes the code on (kernel.ts).
    for (const e of [none, several]) expect((e as Error & { code?: unknown }).code).toBe("not_found");
  });

  it("for one id in several places, says what tells them apart, not to give more characters", () => {
    const places = [
      { id: "mem-x", where: "user" },
      { id: "mem-x", where: "project" },
    ];
    const lookup: IdLookup<{ id: string; where: string }> = {
      noun: "entry",
      id: (p) => p.id,
      where: "in the user, project scope(s)",
      shown: (p) => `${p.id} (${p.where})`,
      narrow: "give more characters or --scope",
      apart: (items) => `say which with ${items.map((p) => `--scope ${p.where}`).join(" or ")}`,
    };
    // The whole id: more characters cannot help.
    const same = thrown(() => byIdOrPrefix(places, "mem-x", lookup));
    expect(same.message).toBe(
      'entry "mem-x" is in more than one place: mem-x (user), mem-x (project); say which with --scope user or --scope project',
    );
    expect(isUserError(same) && userExitCode(same)).toBe(2);
    // A prefix of it is still told both ways out.
    expect(thrown(() => byIdOrPrefix(places, "mem", lookup)).message).toBe(
      'entry "mem" is ambiguous: mem-x (user), mem-x (project); give more characters or --scope',
    );
    // Without a way to tell them apart, nothing is suggested rather than the wrong thing.
    expect(thrown(() => byIdOrPrefix(["ab", "ab"], "ab", names)).message).toBe(
      'thing "ab" is in more than one place: ab, ab',
    );
  });

  it("finds a store's revision by a prefix, and names the scope when it cannot", () => {
    const home = tempDir("relm-by-id-home-");
    const cwd = tempDir("relm-by-id-cwd-");
    cleanups.push(home.cleanup, cwd.cleanup);
    const ctx = { cwd: cwd.path, home: home.path, sessionDir: join(home.path, "sessions", "abc") };
    const project = new HarnessStore(scopeLocation("project", ctx));
    const add = (content: string) =>
      project.commit({
        intents: [{ op: "add", kind: "memory", title: "", content, source: "user" }],
        author: "user",
        reason: content,
      }).revision?.rev as string;
    const first = add("one");
    const second = add("two");
    expect(project.find(first.slice(0, 6)).revision.reason).toBe("one");
    expect(project.find(second).revision.reason).toBe("two");
    expect(thrown(() => project.find("r")).message).toBe(
      `revision "r" is ambiguous: ${first} (project scope), ${second} (project scope); give more characters`,
    );
    expect(thrown(() => project.find("rzzz")).message).toBe('no revision "rzzz" in the project scope');
  });
});
