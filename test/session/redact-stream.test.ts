// A secret cut between two streamed pieces is redacted as a whole one is; what is held back comes out
// with the next piece, or at the end when it turned out to be no secret.
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/session/redact.js";
import { StreamRedactor } from "../../src/session/redact-stream.js";

const SECRET = "sk-live-0123456789abcdef";

describe("StreamRedactor", () => {
  it("redacts a secret cut into pieces, in every stream of its own", () => {
    const stream = new StreamRedactor(new Redactor([SECRET]));
    const shown: string[] = [];
    for (const piece of ["the key is sk-li", "ve-0123456", "789abcdef, and ", "sk", "-live-0123456789abcdef"])
      shown.push(stream.push("a", piece));
    expect(shown[0]).toBe("the key is ");
    expect(stream.push("b", "other sk-live")).toBe("other ");
    shown.push(...stream.flush((s) => s === "a").map(([, text]) => text));
    expect(shown.join("")).toBe("the key is [REDACTED], and [REDACTED]");
    // Stream b ended on what only began like the secret: it is shown as it was.
    expect(stream.holds("b")).toBe(true);
    expect(stream.flush()).toEqual([["b", "sk-live"]]);
  });

  it("holds nothing back when no secret could begin at the end", () => {
    const stream = new StreamRedactor(new Redactor([SECRET]));
    expect(stream.push("a", "plain words!")).toBe("plain words!");
    expect(stream.holds("a")).toBe(false);
    // A redactor without secrets shows every piece at once.
    expect(new StreamRedactor(new Redactor([])).push("a", "sk-li")).toBe("sk-li");
  });

  it("redacts secrets that join the list later (a refreshed token)", () => {
    const secrets: string[] = [];
    const stream = new StreamRedactor(new Redactor(secrets));
    expect(stream.push("a", "before sk-li")).toBe("before sk-li");
    secrets.push(SECRET);
    expect(stream.push("a", "now sk-li")).toBe("now ");
    expect(stream.push("a", "ve-0123456789abcdef!")).toBe("[REDACTED]!");
  });
});
