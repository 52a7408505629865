// Paths a kernel names in what it tells the host (handed-over pickles, a snapshot's manifest) never lead
// the host to a file of the kernel's choosing: a sandboxed cell that names one outside the sandbox must
// not get it deleted or read (issue 19). Real bubblewrap, real kernels, the scripted model over HTTP.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { byTask, echoLastCell } from "../../support/router.js";
import { BWRAP, outsideFolder } from "../../support/sandbox.js";
import { useRigs } from "../../support/scripted.js";

const startRig = useRigs();
const linux = BWRAP;
// A file of the user's on the host's disk lives here.
const elsewhere = outsideFolder(".relm-sandbox-paths-");

/** A file of the user's that the sandbox cannot see or touch (its content: `text`). */
function victim(name: string, text: string): string {
  const path = join(elsewhere, name);
  writeFileSync(path, text);
  return path;
}

const API_KEY = "sk-relm-test-0123456789abcdef";

describe.skipIf(!linux)("relm run --sandbox: paths a kernel names to the host", () => {
  it("a pickle named in rlm.spawn, rlm.map or submit() must be a handed-over one", async () => {
    const a = victim("spawned.txt", "precious\n");
    const b = victim("mapped.txt", "precious\n");
    const c = victim("submitted.txt", "precious\n");
    const variable = (path: string) =>
      `[{'name': 'v', 'pickle': ${JSON.stringify(path)}, 'type': 'str', 'size': '1', 'preview': "'x'"}]`;
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: name files": [
          {
            code: [
              "from relm import calls",
              "def attempt(label, method, params):",
              "    try:",
              "        calls.call(method, params)",
              "        print(label + ': accepted')",
              "    except Exception as e:",
              "        print(label + ':', type(e).__name__, e)",
              `attempt('spawn', 'rlm.spawn', {'task': 'CHILD: idle', 'variables': ${variable(a)}})`,
              `attempt('map', 'rlm.map', {'task': 'CHILD: idle', 'shared': ${variable(b)}, 'children': [{'variables': []}]})`,
              `attempt('submit', 'submit', {'repr': 'x', 'pickle': ${JSON.stringify(c)}})`,
            ].join("\n"),
          },
          echoLastCell,
        ],
        "CHILD: idle": [{ text: "idle" }],
      }),
    });
    const result = await runRelm(["run", "--sandbox", "ROOT: name files"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    for (const path of [a, b, c]) expect(readFileSync(path, "utf8"), path).toBe("precious\n");
    const lines = result.stdout.trim().split("\n");
    expect(lines).toEqual([
      `spawn: HostError variable v: ${JSON.stringify(a)} is not a file relm's Python handed over (handoff-….pkl)`,
      `map: HostError variable v: ${JSON.stringify(b)} is not a file relm's Python handed over (handoff-….pkl)`,
      `submit: HostError submit: ${JSON.stringify(c)} is not a file relm's Python handed over (handoff-….pkl)`,
    ]);
  });

  it("a snapshot manifest naming a file outside the snapshot folder is not followed", async () => {
    // Holds the API key: the host deletes a snapshot file that does (so that no secret stays on disk).
    const target = victim("holds-the-key.txt", `key = ${API_KEY}\n`);
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: forge a snapshot": [
            {
              // The kernel's next snapshot report names the victim as the file of a variable.
              code: [
                "import os, relm.snapshot as s",
                "def take(directory, *args, **kwargs):",
                `    rel = os.path.relpath(${JSON.stringify(target)}, directory)`,
                "    return {'saved': ['x'], 'skipped': [], 'bytes': 1, 'files': {'x': rel}, 'digests': {}, 'unverified': ['x']}",
                "s.take = take",
                "x = 1",
                "print('forged')",
              ].join("\n"),
            },
            { code: "print('another cell, another snapshot')" },
            echoLastCell,
          ],
        }),
      },
      { env: { RELM_API_KEY: API_KEY } },
    );
    const result = await runRelm(["run", "--sandbox", "ROOT: forge a snapshot"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(target)).toBe(true);
    expect(readFileSync(target, "utf8")).toBe(`key = ${API_KEY}\n`);
  });

  it("files the host writes in the session's folders replace a planted link, never write through it", async () => {
    const image = victim("image-target.sh", "original\n");
    const manifest = victim("manifest-target.sh", "original\n");
    const rig = await startRig(
      "openai",
      {
        script: byTask({
          "ROOT: plant links": [
            {
              code: [
                "import os, IPython",
                "from relm import handoff",
                "from IPython.display import display, Image",
                "outputs = handoff._directory()",
                "n = IPython.get_ipython().execution_count",
                // Where the host will write this cell's image, and the next snapshot's manifest.
                `os.symlink(${JSON.stringify(image)}, os.path.join(outputs, f'cell-{n}-0.png'))`,
                "snapshot = os.path.join(os.path.dirname(outputs), 'snapshot')",
                "os.makedirs(snapshot, exist_ok=True)",
                `os.symlink(${JSON.stringify(manifest)}, os.path.join(snapshot, 'manifest.json.tmp'))`,
                "x = 'a value to snapshot'",
                "display(Image(data=b'\\x89PNG\\r\\n\\x1a\\n\\necho pwned\\n', format='png'))",
                "print('planted', n)",
              ].join("\n"),
            },
            { code: "print('one more cell')" },
            echoLastCell,
          ],
        }),
      },
      { env: { RELM_API_KEY: API_KEY } },
    );
    const result = await runRelm(["run", "--sandbox", "ROOT: plant links"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(image, "utf8")).toBe("original\n");
    expect(readFileSync(manifest, "utf8")).toBe("original\n");
    // The image is where it belongs, as a file of the session.
    const [session] = readdirSync(join(rig.home, "sessions"));
    const written = join(rig.home, "sessions", session!, "outputs", "cell-1-0.png");
    expect(lstatSync(written).isFile()).toBe(true);
    expect(readFileSync(written, "utf8")).toContain("echo pwned");
  });

  it("relm writes no project harness while the sandbox can write what it would create there", async () => {
    // The project has no .relm/, so the sandbox cannot show one read-only: a cell makes one with a link
    // in it, and asks relm to save a skill to the project (its files would go where the link leads).
    const target = mkdtempSync(join(elsewhere, "site-packages-"));
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: save a skill": [
          {
            code: [
              "import os",
              "os.makedirs('.relm')",
              `os.symlink(${JSON.stringify(target)}, '.relm/skills')`,
              "try:",
              "    harness.save_skill('usercustomize', 'runs at every Python start', 'X = 1', scope='project')",
              "    print('saved')",
              "except Exception as e:",
              "    print(type(e).__name__, e)",
              "print(harness.save_skill('mine', 'a session skill', 'Y = 2')['path'] != '')",
            ].join("\n"),
          },
          echoLastCell,
        ],
      }),
    });
    const result = await runRelm(["run", "--sandbox", "ROOT: save a skill"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(target)).toEqual([]);
    expect(result.stdout.trim().split("\n")).toEqual([
      "ValueError the project scope cannot be written in this session: the project had no .relm/ when its " +
        "sandbox started, so sandboxed code could write what relm would put there (and lead relm's writes " +
        'elsewhere). Use scope "session" or "user", or create .relm/ in the project and start a new session',
      "True",
    ]);
  });

  it("with a .relm/ there from the start, the project harness works as before (read-only inside)", async () => {
    const rig = await startRig("openai", {
      script: byTask({
        "ROOT: save a skill": [
          {
            code: [
              "print(harness.save_skill('projskill', 'a project skill', 'Z = 3', scope='project')['path'])",
              "try:",
              "    open('.relm/skills/projskill/projskill/__init__.py', 'w').write('Z = 4')",
              "except OSError as e:",
              "    print(e.strerror)",
            ].join("\n"),
          },
          echoLastCell,
        ],
      }),
    });
    mkdirSync(join(rig.cwd, ".relm"));
    const result = await runRelm(["run", "--sandbox", "ROOT: save a skill"], { env: rig.env, cwd: rig.cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([
      join(rig.cwd, ".relm", "skills", "projskill"),
      "Read-only file system",
    ]);
    expect(
      readFileSync(join(rig.cwd, ".relm", "skills", "projskill", "projskill", "__init__.py"), "utf8"),
    ).toContain("Z = 3");
  });
});
