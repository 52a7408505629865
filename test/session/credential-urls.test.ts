// URLs with a password in them are secrets: found in values, listed for redaction, masked in journals.
import { describe, expect, it } from "vitest";
import { secretValues } from "../../src/agent/core/redact.js";
import { credentialsIn, hasCredentialUrl, maskCredentialUrls } from "../../src/config/credential-urls.js";
import { Redactor } from "../../src/session/redact.js";

describe("credential URLs", () => {
  it("finds a password in a URL, and nothing in URLs without one", () => {
    expect(hasCredentialUrl("postgres://app:s3cret@db:5432/prod")).toBe(true);
    expect(hasCredentialUrl("redis://:pw@cache")).toBe(true);
    expect(hasCredentialUrl("x mysql://u:p@ss@h/db y")).toBe(true);
    expect(hasCredentialUrl("ssh://git@github.com/org/repo")).toBe(false);
    expect(hasCredentialUrl("http://localhost:8080/a@b")).toBe(false);
    expect(hasCredentialUrl("http://h/?q=u:p@x")).toBe(false);
    expect(hasCredentialUrl("user:pass@host")).toBe(false);
    // The global regex must not carry state from one call to the next.
    expect([1, 2, 3].map(() => hasCredentialUrl("a://u:p@h"))).toEqual([true, true, true]);
  });

  it("lists user:password and the password, raw and decoded", () => {
    expect(credentialsIn("postgres://app:p%40ss-word@db/x").sort()).toEqual(
      ["app:p%40ss-word", "app:p@ss-word", "p%40ss-word", "p@ss-word"].sort(),
    );
    expect(credentialsIn("mysql://u:p@ss@h/db")).toEqual(["u:p@ss", "p@ss"]);
  });

  it("masks only the password", () => {
    expect(maskCredentialUrls("DSN=postgres://app:s3cret@db/x and https://u:t@h", "***")).toBe(
      "DSN=postgres://app:***@db/x and https://u:***@h",
    );
    expect(maskCredentialUrls("ssh://git@github.com/x", "***")).toBe("ssh://git@github.com/x");
  });
});

describe("secretValues", () => {
  it("lists a credential URL whatever its name, and its parts; not plain endpoint URLs", () => {
    const values = secretValues({
      DATABASE_URL: "postgres://app:s3cret-password@db/x",
      OPENAI_BASE_URL: "https://api.example.com/v1",
      HTTPS_PROXY: "https://proxy-user:proxy-pass-1@proxy:3128",
      HOME: "/home/u",
    });
    expect(values).toContain("postgres://app:s3cret-password@db/x");
    expect(values).toContain("app:s3cret-password");
    expect(values).toContain("s3cret-password");
    expect(values).toContain("https://proxy-user:proxy-pass-1@proxy:3128");
    expect(values).toContain("proxy-pass-1");
    expect(values).not.toContain("https://api.example.com/v1");
    expect(values).not.toContain("/home/u");
  });
});

describe("Redactor", () => {
  it("masks the password of a URL it was not told about, in values and nested JSON", () => {
    const r = new Redactor();
    const code = JSON.stringify({ code: 'engine = create_engine("postgresql://app:devpw@localhost/db")' });
    expect(r.value({ output: "postgres://u:hunter2@h/x", args: code })).toEqual({
      output: "postgres://u:[REDACTED]@h/x",
      args: JSON.stringify({ code: 'engine = create_engine("postgresql://app:[REDACTED]@localhost/db")' }),
    });
  });

  it("removes a known DATABASE_URL whole, and its password where it appears alone", () => {
    const url = "postgres://app:s3cret-password@db/x";
    const r = new Redactor(secretValues({ DATABASE_URL: url }));
    expect(r.text(`url=${url} password=s3cret-password`)).toBe("url=[REDACTED] password=[REDACTED]");
  });
});
