// The trust store (src/config/trust.ts): approvals by project, kind and name, checked against the
// SHA-256 of the exact content approved, kept in $RELM_HOME/trust.json (0600, written atomically).

import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { canonicalJson, contentHash, TrustStore, trustFile, updateTrust } from "../../src/config/trust.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scratch(): { home: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), "relm-trust-"));
  dirs.push(root);
  const project = join(root, "project");
  mkdirSync(project);
  return { home: join(root, "home"), project };
}

describe("the trust store", () => {
  it("hashes content whatever its key order; any change to it is another hash", () => {
    const a = { command: "sh", args: ["-c", "x"], env: { B: "2", A: "1" } };
    const b = { env: { A: "1", B: "2" }, args: ["-c", "x"], command: "sh" };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(contentHash(a)).toBe(contentHash(b));
    expect(contentHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(contentHash({ ...a, args: ["-c", "x "] })).not.toBe(contentHash(a));
    expect(contentHash({ ...a, env: { ...a.env, LD_PRELOAD: "/p/x.so" } })).not.toBe(contentHash(a));
  });

  it("approved, changed, not approved; kept across loads in a 0600 file; revoked", () => {
    const { home, project } = scratch();
    const subject = { project, kind: "mcp", name: "evil" };
    expect(TrustStore.load(home).check(subject, "h1")).toEqual({ state: "not approved" });
    updateTrust(home, (store) => store.approve(subject, "h1", { outsideSandbox: true }));
    expect(statSync(trustFile(home)).mode & 0o777).toBe(0o600);
    // Only trust.json in the directory: the temporary file was renamed over it.
    expect(readdirSync(home)).toEqual(["trust.json"]);
    const store = TrustStore.load(home);
    expect(store.check(subject, "h1")).toMatchObject({ state: "approved", approval: { sha256: "h1" } });
    expect(store.approval(subject)?.options).toEqual({ outsideSandbox: true });
    expect(store.check(subject, "h2")).toMatchObject({ state: "changed" });
    // Another kind, another name, another project: not approved by this.
    expect(store.check({ ...subject, kind: "hook" }, "h1").state).toBe("not approved");
    expect(store.check({ ...subject, name: "other" }, "h1").state).toBe("not approved");
    expect(store.check({ ...subject, project: join(project, "sub") }, "h1").state).toBe("not approved");
    expect(updateTrust(home, (s) => s.revoke(subject))).toBe(true);
    expect(TrustStore.load(home).check(subject, "h1").state).toBe("not approved");
  });

  it("a project reached through a symlink is the same project", () => {
    const { home, project } = scratch();
    const link = join(project, "..", "link");
    symlinkSync(project, link);
    updateTrust(home, (store) => store.approve({ project: link, kind: "mcp", name: "s" }, "h"));
    expect(TrustStore.load(home).check({ project, kind: "mcp", name: "s" }, "h").state).toBe("approved");
  });

  it("a name like __proto__ is a name like any other", () => {
    const { home, project } = scratch();
    const subject = { project, kind: "mcp", name: "__proto__" };
    updateTrust(home, (store) => store.approve(subject, "h"));
    expect(TrustStore.load(home).check(subject, "h").state).toBe("approved");
    expect(TrustStore.load(home).check({ ...subject, name: "constructor" }, "h").state).toBe("not approved");
  });

  it("a damaged trust.json is a ConfigError naming the file, not a silent approval", () => {
    const { home } = scratch();
    mkdirSync(home, { recursive: true });
    for (const text of [
      "{not json",
      JSON.stringify({ version: 1, projects: { "/p": { mcp: { s: "yes" } } } }),
    ]) {
      writeFileSync(trustFile(home), text);
      expect(() => TrustStore.load(home)).toThrow(ConfigError);
      expect(() => TrustStore.load(home)).toThrow(trustFile(home));
    }
  });
});
