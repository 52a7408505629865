// RELM_HOME where nothing can be made, and a RELM_HOME whose disk is full: one `relm: …` line naming the
// path and the problem, exit 1, no stack trace — and nothing left damaged that was whole before.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeDirs } from "../../../src/config/dirs.js";
import { readJournal } from "../../../src/session/index.js";
import { ROOT, runRelm, tempDir } from "../../support/cli.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();

/** A tmpfs can be mounted here (root, or a container that allows it): the full-disk test needs one. */
function canMount(): boolean {
  const probe = tempDir("relm-mount-probe-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path], { stdio: "ignore" });
    execFileSync("umount", [probe.path], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    probe.cleanup();
  }
}

const oneLine = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("relm: "));

describe("a RELM_HOME that cannot be made", () => {
  it("RELM_HOME=/proc/1/nothere: one line naming it, exit 1, no hang", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const env = { ...rig.env, RELM_HOME: "/proc/1/nothere" };
    const result = await runRelm(["run", "x"], { env, cwd: rig.cwd, timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(oneLine(result.stderr)).toEqual([
      expect.stringMatching(/^relm: RELM_HOME \(\/proc\/1\/nothere\) cannot be used: /),
    ]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(rig.model.requests).toHaveLength(0);
  });

  it("RELM_HOME a regular file: run and the listings (agents, schedule list, harness list/log) refuse it alike, exit 1", async () => {
    const rig = await startRig("openai", { script: [{ text: "never" }] });
    const home = join(rig.cwd, "home-file");
    writeFileSync(home, "not a directory\n");
    const env = { ...rig.env, RELM_HOME: home };
    const said = `relm: RELM_HOME (${home}) cannot be used: ${home} is a file, not a directory. Point RELM_HOME at a writable directory`;
    for (const args of [
      ["run", "x"],
      ["agents"],
      ["agents", "--json"],
      ["schedule", "list"],
      ["harness", "list"],
      ["harness", "log"],
    ]) {
      const result = await runRelm(args, { env, cwd: rig.cwd });
      expect({ args, code: result.code, said: oneLine(result.stderr), stdout: result.stdout }).toEqual({
        args,
        code: 1,
        said: [said],
        stdout: "",
      });
    }
    expect(rig.model.requests).toHaveLength(0);
  });

  it("makeDirs gives up where mkdir fails although the parent is there, where Node's recursive mkdir loops", () => {
    expect(() => makeDirs("/proc/1/nothere/deeper")).toThrow(expect.objectContaining({ code: "ENOENT" }));
    const dir = tempDir();
    try {
      makeDirs(join(dir.path, "a", "b", "c"), 0o700);
      makeDirs(join(dir.path, "a", "b", "c"));
      expect(readdirSync(join(dir.path, "a", "b"))).toEqual(["c"]);
    } finally {
      dir.cleanup();
    }
  });
});

describe("directories relm makes", () => {
  it("are made with makeDirs, never Node's recursive mkdir (which can loop forever)", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith(".ts")) {
          const code = readFileSync(path, "utf8")
            .split("\n")
            .filter((line) => !/^\s*(\/\/|\*)/.test(line));
          if (code.some((line) => /\bmkdir(Sync)?\(.*recursive:\s*true/.test(line))) offenders.push(path);
        }
      }
    };
    walk(join(ROOT, "src"));
    expect(offenders).toEqual([]);
  });
});

const mountable = canMount();

describe.skipIf(!mountable)(
  `a full disk${mountable ? "" : " (skipped: mounting a tmpfs is not permitted here)"}`,
  () => {
    it("a new session on a full disk: one line naming the journal, exit 1, and no session left half made; a full disk mid-run damages nothing", async () => {
      const rig = await startRig("openai", {
        script: [{ text: "first done" }, { code: "print('y' * 2_000_000)" }, { text: "never" }],
      });
      const mnt = tempDir("relm-full-");
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt.path]);
      try {
        const home = join(mnt.path, "home");
        mkdirSync(home);
        copyFileSync(join(rig.home, "config.json"), join(home, "config.json"));
        const env = { ...rig.env, RELM_HOME: home };
        const first = await runRelm(["run", "first"], { env, cwd: rig.cwd });
        expect(first.code).toBe(0);
        const [id] = readdirSync(join(home, "sessions"));

        const filler = join(mnt.path, "filler");
        const fill = (bytes?: number) => {
          try {
            execFileSync("sh", ["-c", `head -c ${bytes ?? 100_000_000} /dev/zero > ${filler}`], {
              stdio: "ignore",
            });
          } catch {
            // The disk is full: that is the point.
          }
        };
        fill();
        const second = await runRelm(["run", "second"], { env, cwd: rig.cwd });
        expect(second.code).toBe(1);
        expect(oneLine(second.stderr)).toEqual([
          expect.stringMatching(
            /^relm: cannot write .*\/journal\.jsonl: no space left on the device; free some space/,
          ),
        ]);
        expect(second.stderr).not.toMatch(/internal error|\n\s+at /);
        expect(readdirSync(join(home, "sessions"))).toEqual([id]);

        // Room for a few lines but not for the cell's result (20,000 characters of its 2 MB, the rest
        // written to outputs/ and, on a full disk, dropped again): that journal append fails part-way.
        rmSync(filler);
        const free = Number(
          execFileSync("df", ["--output=avail", "-B1", mnt.path]).toString().split("\n")[1],
        );
        fill(Math.max(0, free - 25_000));
        const resumed = await runRelm(["run", "--resume", id as string, "more"], { env, cwd: rig.cwd });
        expect(resumed.code).toBe(1);
        expect(resumed.stderr).toMatch(/no space left on/);
        expect(resumed.stderr).not.toMatch(/internal error|\n\s+at /);
        // Whole: every line relm wrote reads back, and nothing lists as damaged.
        const path = join(home, "sessions", id as string, "journal.jsonl");
        expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
        expect(readJournal(path).truncatedTail).toBe(false);
        const agents = await runRelm(["agents"], { env, cwd: rig.cwd });
        expect(agents.stdout).not.toMatch(/damaged/);
      } finally {
        execFileSync("umount", ["-l", mnt.path]);
        mnt.cleanup();
      }
    }, 120_000);
  },
);
