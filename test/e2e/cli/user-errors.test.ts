// Issue 10, item 7: what a careless user or a broken machine does must end in one `relm: …` line with
// the right exit code, never "internal error" and a stack trace. Each case runs the built binary.

import { spawnSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { reportError } from "../../../src/cli/report-error.js";
import { type CliResult, cleanEnv, RELM_BIN, ROOT, runRelm, tempDir } from "../../support/cli.js";
import { type Rig, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

function expectUserError(result: CliResult, code: 1 | 2, message: string | RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).not.toContain("internal error");
  expect(result.stderr).not.toMatch(/^\s+at /m);
  if (typeof message === "string") expect(result.stderr).toBe(`relm: ${message}\n`);
  else expect(result.stderr).toMatch(message);
}

async function sessionOf(rig: Rig): Promise<string> {
  const run = await runRelm(["run", "--json", "hello"], { env: rig.env, cwd: rig.cwd });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout.split("\n")[0] as string) as { id: string }).id;
}

/** Whether this machine lets us make a private mount namespace (root, or user namespaces allowed). */
function canMountPrivately(): boolean {
  const probe = spawnSync("unshare", ["-m", "--", "mount", "-t", "tmpfs", "none", "/mnt"], {
    stdio: "ignore",
  });
  return probe.status === 0;
}

describe("user errors through the binary", () => {
  it("a second host for a live session: the error crosses from the unbundled host code to the CLI bundle", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    try {
      const launched = await runRelm(["run", "--detach", "hello"], { env: rig.env, cwd: rig.cwd });
      expect(launched.code, launched.stderr).toBe(0);
      const id = launched.stdout.trim();
      // dist/host/early-bind.js and dist/host/server.js throw SessionBusyError from their own copy of
      // config/errors.js; dist/cli/app.js reports it with the bundle's copy.
      const second = await runRelm(["run", "--as-host", id], { env: rig.env, cwd: rig.cwd });
      expectUserError(
        second,
        1,
        `session ${id} already has a live host (another relm process is running it): ` +
          `follow it with relm attach ${id}, or stop it with relm stop ${id}`,
      );
      // Line mode will not continue it either: a session that is running is exit 1 (docs/cli.md,
      // "Errors"), as `relm run --resume` says; it was exit 2, a bad command line.
      for (const args of [["--resume", id, "more"], ["--continue"]]) {
        const line = await runRelm(args, { env: rig.env, cwd: rig.cwd });
        expectUserError(line, 1, `session ${id} is running in another process; relm attach ${id} joins it`);
      }
    } finally {
      await runRelm(["shutdown"], { env: rig.env });
    }
  });

  it("relm stop of a session that is not running: one `relm: ` line, exit 1", async () => {
    // It printed "session ID is not running" with no `relm: `, unlike every other error.
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const id = await sessionOf(rig);
    const stop = await runRelm(["stop", id], { env: rig.env, cwd: rig.cwd });
    expectUserError(stop, 1, `session ${id} is not running; nothing to stop`);
  });

  it("a bad --cron, and one that never fires", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const id = await sessionOf(rig);
    const add = (cron: string) =>
      runRelm(["schedule", "add", id, "--cron", cron, "tick"], { env: rig.env, cwd: rig.cwd });
    // A bad flag value: exit 2, as a malformed --every is (docs/cli.md, "Errors").
    expectUserError(await add("61 * * * *"), 2, '--cron "61 * * * *": Invalid value for minute: 61');
    expectUserError(await add("every day"), 2, /^relm: --cron "every day": invalid configuration format/);
    expectUserError(await add("0 0 30 2 *"), 2, '--cron "0 0 30 2 *": no date ever matches it');
    const list = await runRelm(["schedule", "list"], { env: rig.env });
    expect(list.stdout).toBe("no scheduled jobs\n");
  });

  it("a 2 GiB --var is refused from its size, before anything reads it", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const big = join(rig.cwd, "big.bin");
    closeSync(openSync(big, "w"));
    truncateSync(big, 2 * 1024 ** 3); // sparse: no disk used, and reading it would take seconds
    for (const args of [
      ["run", "--var", "data=@big.bin", "hello"],
      ["run", "--detach", "--var", "data=@big.bin", "hello"],
    ]) {
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      expectUserError(
        result,
        2,
        `--var data=@big.bin: the file is 2.0 GiB; --var loads at most 1.0 GiB into the kernel as one value. ` +
          `For a larger file give its path instead (--var data_path=${big}) and let the model read it in parts`,
      );
    }
    // A host started by hand with it refuses it too, and exits instead of holding its socket.
    const host = await runRelm(["run", "--as-host", "zz000001", "--var", "data=@big.bin", "hello"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expectUserError(host, 2, /^relm: --var data=@big\.bin: the file is 2\.0 GiB/);
    expect(existsSync(join(rig.home, "run", "zz000001.sock"))).toBe(false);
    expect(rig.model.requests).toHaveLength(0);
  });

  it("a base URL with an empty port, before any request", async () => {
    const rig = await startRig("openai", { script: [{ text: "never asked" }] });
    const bad = `${rig.env.RELM_BASE_URL?.replace(/:\d+\//, ":/")}`;
    expect(bad).toMatch(/^http:\/\/127\.0\.0\.1:\//);
    const flag = await runRelm(["run", "--base-url", bad, "hello"], { env: rig.env, cwd: rig.cwd });
    expectUserError(
      flag,
      2,
      `--base-url: base URL "${bad}" has an empty port after the ':' (give one, e.g. :8080, or drop the ':')`,
    );
    const env = await runRelm(["run", "hello"], { env: { ...rig.env, RELM_BASE_URL: bad }, cwd: rig.cwd });
    expectUserError(env, 1, /^relm: RELM_BASE_URL: base URL "http:\/\/127\.0\.0\.1:\/v1" has an empty port/);
    const login = await runRelm(["login", "--model", "m", "--base-url", bad], { env: rig.env, cwd: rig.cwd });
    expectUserError(login, 2, /^relm: --base-url: base URL .* has an empty port/);
    expect(rig.model.requests).toHaveLength(0);
  });

  it("RELM_HOME under a regular file", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "file"), "not a directory\n");
      const home = join(dir.path, "file", "home");
      const env = cleanEnv({ RELM_HOME: home, RELM_MODEL: "m", RELM_BASE_URL: "http://127.0.0.1:9/v1" });
      const problem = `RELM_HOME (${home}) cannot be used: ${join(dir.path, "file")} is a file, not a directory. Point RELM_HOME at a writable directory`;
      for (const args of [
        ["run", "hello"],
        ["run", "--detach", "hello"],
        ["login", "--model", "m"],
      ]) {
        expectUserError(await runRelm(args, { env, cwd: dir.path }), 1, problem);
      }
      const doctor = await runRelm(["doctor", "--fix"], { env, cwd: dir.path });
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain(
        `FAIL  home      RELM_HOME ${home} cannot be used: ${join(dir.path, "file")} is a file`,
      );
      expect(doctor.stderr).toBe("");
    } finally {
      dir.cleanup();
    }
  });

  it.skipIf(!canMountPrivately())(
    "RELM_HOME on a read-only disk (a read-only bind mount in a private mount namespace)",
    async () => {
      const rig = await startRig("openai", { script: [{ text: "done" }] });
      const id = await sessionOf(rig);
      // The mount exists only in the namespace of the one command run under it; nothing is left behind.
      // Run without blocking this process: the scripted model serving relm doctor's probe lives here.
      const readOnly = (args: string[]) => {
        const script = `mount --bind "$H" "$H" && mount -o remount,bind,ro "$H" && exec "$NODE" "$BIN" "$@"`;
        return runRelm(["-m", "--", "sh", "-c", script, "sh", ...args], {
          bin: "unshare",
          env: { ...rig.env, H: rig.home, NODE: process.execPath, BIN: RELM_BIN },
          cwd: rig.cwd,
        });
      };
      const problem = `RELM_HOME (${rig.home}) cannot be used: ${rig.home} is on a read-only file system. Point RELM_HOME at a writable directory`;
      for (const args of [
        ["run", "hello"],
        ["run", "--detach", "hello"],
        ["run", "--resume", id, "again"],
        ["schedule", "add", id, "--every", "1h", "tick"],
      ]) {
        expectUserError(await readOnly(args), 1, problem);
      }
      // Reading still works.
      const logs = await readOnly(["logs", id]);
      expect(logs.code, logs.stderr).toBe(0);
      expect(logs.stdout).toContain("done");
      const doctor = await readOnly(["doctor", "--fix"]);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toContain(
        `FAIL  home      RELM_HOME ${rig.home} cannot be used: ${rig.home} is on a read-only file system`,
      );
      expect(doctor.stderr).toBe("");
      expect(rig.model.requests).toHaveLength(1);
    },
  );

  it("a read-only disk, in process: an EROFS under RELM_HOME is a user error however Node words it", () => {
    const dir = tempDir();
    try {
      const home = join(dir.path, "home");
      mkdirSync(home);
      let text = "";
      const stderr = {
        write: (s: string) => {
          text += s;
          return true;
        },
      } as unknown as NodeJS.WritableStream;
      const erofs = Object.assign(new Error("EROFS: read-only file system, open"), {
        code: "EROFS",
        syscall: "open",
        path: join(home, "config.json"),
      });
      expect(reportError(erofs, stderr, home)).toBe(1);
      expect(text).toBe(`relm: cannot open ${join(home, "config.json")}: read-only file system\n`);
    } finally {
      dir.cleanup();
    }
  });
});

describe("a SKILL.md with bad front matter", () => {
  it("is reported by doctor and warned about at the session's start, not dropped in silence", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }], models: ["scripted"] });
    const skills = join(rig.cwd, ".relm", "skills");
    mkdirSync(join(skills, "good"), { recursive: true });
    writeFileSync(join(skills, "good", "SKILL.md"), "---\nname: good\ndescription: Counts words.\n---\n");
    mkdirSync(join(skills, "broken"), { recursive: true });
    const broken = join(skills, "broken", "SKILL.md");
    writeFileSync(broken, "---\nname: broken\ndescription: [unclosed\n---\n");
    const warning = `skill ${broken} is left out: front matter line 3 is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`;

    const doctor = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(doctor.stdout).toContain(`warn  skills    ${warning}\n`);
    expect(doctor.code, doctor.stdout).toBe(0); // a warning: the rest works

    const run = await runRelm(["run", "hello"], { env: rig.env, cwd: rig.cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`⚠ ${warning}\n`);
    const system = JSON.parse(rig.bodies()[0] as string).messages[0].content as string;
    expect(system).toContain("Counts words.");
    // Journaled, so a detached session's log and relm logs show it too.
    const id = (await runRelm(["agents", "--json"], { env: rig.env })).stdout.match(/"id":"(\w+)"/)?.[1];
    const logs = await runRelm(["logs", id as string], { env: rig.env });
    expect(logs.stdout).toContain(`⚠ ${warning}`);

    writeFileSync(broken, "---\nname: broken\ndescription: Fixed now.\n---\n");
    const fixed = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(fixed.stdout).toContain("ok    skills    2 found, none left out\n");
  });
});

describe("config.json values of the wrong type", () => {
  it("end the command with the key, what it must be and what it was; doctor says the same", async () => {
    const rig = await startRig("openai", { script: [{ text: "done" }] });
    const path = join(rig.home, "config.json");
    writeFileSync(path, JSON.stringify({ cellTimeoutSeconds: "5m", learn: { budget: { tokens: -1 } } }));
    const message = `${path}: cellTimeoutSeconds must be a number > 0 (seconds), got "5m"; learn.budget.tokens must be a whole number of 1 or more, got -1`;
    for (const args of [
      ["run", "hello"],
      ["run", "--detach", "hello"],
      ["agents"],
      ["login", "--model", "m"],
    ]) {
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      if (args[0] === "agents") {
        expect(result.code, result.stderr).toBe(0); // listing sessions reads no configuration
        continue;
      }
      expectUserError(result, 1, message);
    }
    const doctor = await runRelm(["doctor"], { env: rig.env, cwd: rig.cwd });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`FAIL  config    ${message}\n`);
    expect(doctor.stderr).toBe("");
    expect(rig.model.requests).toHaveLength(0);
  });

  it("the check is bundled with the configuration, which relm --version never loads", async () => {
    // A copy of the build without the files that hold valibot (a chunk of the commands' bundle, and the
    // UI's and relm web's own bundles have their copy): --version still answers, run cannot.
    const copy = tempDir("relm-no-valibot-");
    try {
      cpSync(join(ROOT, "dist"), join(copy.path, "dist"), { recursive: true });
      copyFileSync(join(ROOT, "package.json"), join(copy.path, "package.json"));
      const cli = join(copy.path, "dist/cli");
      const holding = readdirSync(cli).filter(
        (f) =>
          f.endsWith(".js") &&
          /^\/\/ (.*\/)?node_modules\/valibot\//m.test(readFileSync(join(cli, f), "utf8")),
      );
      expect(holding.length).toBeGreaterThan(0);
      for (const file of holding) rmSync(join(cli, file));
      const bin = join(cli, "main.js");
      const node = (args: string[], env = cleanEnv()) =>
        spawnSync(process.execPath, [bin, ...args], { env, encoding: "utf8", input: "" });
      const version = node(["--version"]);
      expect(version.status, version.stderr).toBe(0);
      expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
      const run = node(["run", "hello"], cleanEnv({ RELM_HOME: join(copy.path, "home") }));
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain("Cannot find module");
    } finally {
      copy.cleanup();
    }
  });
});
