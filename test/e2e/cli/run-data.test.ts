import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runRelm } from "../../support/cli.js";
import { onlyJournal } from "../../support/journal.js";
import { type Format, useRigs } from "../../support/scripted.js";

const startRig = useRigs();

const CACHE_MARK = `,"cache_control":{"type":"ephemeral"}`;

describe("data lives in variables, not in the prompt", () => {
  it("loads a 20 MB file with --var; the first request stays under 30 KB", async () => {
    const rig = await startRig("openai", {
      script: [
        { code: "print(len(big), big[:5], repr(big[-3:]))" },
        (ctx) => ({ text: ctx.lastToolResult?.trim() ?? "" }),
      ],
    });
    const line = "0123456789abcdefghijklmnopqrstuvwxyz\n";
    const size = 20 * 1024 * 1024;
    const content = `START${line.repeat(Math.ceil(size / line.length)).slice(0, size - 8)}END`;
    writeFileSync(join(rig.cwd, "big.txt"), content);
    const result = await runRelm(
      ["run", "--var", "big=@big.txt", "--var", "note=hello", "how long is big?"],
      {
        env: rig.env,
        cwd: rig.cwd,
      },
    );
    expect(result.code).toBe(0);
    const first = rig.model.requests[0]?.rawBody ?? "";
    expect(Buffer.byteLength(first)).toBeLessThan(30_000);
    expect(first).toContain("big");
    expect(first, first.slice(first.indexOf("# Variables"), first.indexOf("# Variables") + 300)).toContain(
      "20,971,520 chars",
    );
    expect(content.length).toBe(size);
    expect(result.stdout.trim()).toBe(`${size} START 'END'`);
  });
});

describe("a --var named like what the kernel already has", () => {
  it("is refused for relm's functions (naming --var and another name), warned of for Python's built-ins", async () => {
    const rig = await startRig("openai", {
      script: [{ code: "print" }, (ctx) => ({ text: ctx.lastToolResult ?? "" })],
    });
    writeFileSync(join(rig.cwd, "notes.txt"), "some notes\n");
    // `--var rlm=…` hid rlm() from the model, `--var done=@FILE` done(): nothing said so.
    for (const args of [
      ["run", "--var", "rlm=hello", "task"],
      ["run", "--var", "done=@notes.txt", "task"],
      ["run", "--detach", "--var", "submit=x", "task"],
    ]) {
      const result = await runRelm(args, { env: rig.env, cwd: rig.cwd });
      expect(result.code, result.stderr).toBe(2);
      const name = (args[args.indexOf("--var") + 1] as string).split("=")[0] as string;
      expect(result.stderr).toMatch(new RegExp(`^relm: --var ${name}: .*relm's functions in the kernel`));
      expect(result.stderr).toContain(`e.g. --var ${name}_data=`);
    }
    expect(rig.model.requests).toHaveLength(0);
    // A built-in's name is the user's to take (the model's print(...) gets the text), but not silently.
    const shadowing = await runRelm(["run", "--var", "print=@notes.txt", "task"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(shadowing.code, shadowing.stderr).toBe(0);
    expect(shadowing.stderr).toContain("--var print shadows Python's built-in print in the kernel");
    expect(shadowing.stderr).toContain("e.g. --var print_data=@notes.txt");
    expect(shadowing.stdout).toContain("'some notes\\n'");
  });
});

describe("secrets never reach the kernel, the journal or the output", () => {
  it("scrubs the kernel environment and redacts the key", async () => {
    const key = "sk-live-abcdefghijklmnop";
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "import os\nprint(sorted(os.environ))" },
          { code: "print('length', len(os.environ.get('ALLOWED_TOKEN', '')))" },
          { text: "checked" },
        ],
        requireApiKey: key,
      },
      {
        env: {
          RELM_API_KEY: key,
          OPENAI_API_KEY: "sk-other-0987654321",
          GITHUB_TOKEN: "ghp_abcdefghijkl",
          MY_SECRET_THING: "hunter2hunter2",
          DB_PASSWORD: "pa55w0rd-long",
          ALLOWED_TOKEN: "visible-on-purpose",
        },
      },
    );
    const result = await runRelm(["run", "--pass-env", "ALLOWED_TOKEN", "look at env"], {
      env: rig.env,
      cwd: rig.cwd,
    });
    expect(result.code).toBe(0);
    const seen = rig.model.requests[1]?.rawBody ?? "";
    expect(seen).toContain("'ALLOWED_TOKEN'");
    for (const name of ["RELM_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "MY_SECRET_THING", "DB_PASSWORD"]) {
      expect(seen).not.toContain(`'${name}'`);
    }
    // Passed through on purpose, so code can use it; its value is still kept out of every transcript.
    expect(rig.model.requests[2]?.rawBody).toContain(`length ${"visible-on-purpose".length}`);
    const { raw } = onlyJournal(rig.home);
    const secrets = [
      key,
      "sk-other-0987654321",
      "ghp_abcdefghijkl",
      "hunter2hunter2",
      "pa55w0rd-long",
      "visible-on-purpose",
    ];
    for (const secret of secrets) {
      expect(raw).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
      for (const r of rig.model.requests) expect(r.rawBody).not.toContain(secret);
    }
  });
});

describe("URLs with a password are secrets too", () => {
  it("keeps DATABASE_URL out of the kernel and every password of such URLs out of the journal", async () => {
    const dsn = "postgres://app:Sup3r-s3cret-pw@db.example:5432/prod";
    const rig = await startRig(
      "openai",
      {
        script: [
          { code: "import os\nprint(sorted(k for k in os.environ if k.endswith(('_URL', '_PROXY'))))" },
          {
            code: [
              "from urllib.parse import urlparse",
              "dsn = open('dsn.txt').read().strip()",
              "print(dsn)",
              "print(urlparse(dsn).password)",
              // Put together in the cell, so the code the model wrote does not hold it.
              "print('other mysql://reader:' + 'n0t-in' + '-env-pw@replica/db')",
            ].join("\n"),
          },
          { text: "checked" },
        ],
      },
      {
        env: {
          DATABASE_URL: dsn,
          HTTPS_PROXY: "http://proxy-user:proxy-pass-99@proxy:3128",
          REPO_URL: "ssh://git@github.com/org/repo.git",
          SERVICE_URL: "http://localhost:8080/",
        },
      },
    );
    writeFileSync(join(rig.cwd, "dsn.txt"), `${dsn}\n`);
    const result = await runRelm(["run", "look at env"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const names = rig.model.requests[1]?.rawBody ?? "";
    expect(names).toContain("'REPO_URL', 'SERVICE_URL']");
    expect(names).not.toContain("'DATABASE_URL'");
    expect(names).not.toContain("'HTTPS_PROXY'");
    const { raw } = onlyJournal(rig.home);
    expect(raw).toContain("mysql://reader:[REDACTED]@replica/db");
    for (const secret of ["Sup3r-s3cret-pw", "proxy-pass-99", "n0t-in-env-pw"]) {
      expect(raw).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
      for (const r of rig.model.requests) expect(r.rawBody).not.toContain(secret);
    }
  });
});

describe.each<Format>(["openai", "anthropic"])("prompt-cache friendly requests (%s)", (format) => {
  it("each request body extends the previous one byte for byte", async () => {
    const rig = await startRig(format, {
      script: [
        { code: "a = 1\nprint(a)" },
        { text: "thinking", code: "b = a + 1\nprint(b)" },
        { code: "print(a + b)" },
        { text: "3" },
      ],
    });
    const result = await runRelm(["run", "count"], { env: rig.env, cwd: rig.cwd });
    expect(result.code).toBe(0);
    const bodies = rig.bodies().map((b) => (format === "anthropic" ? b.split(CACHE_MARK).join("") : b));
    expect(bodies).toHaveLength(4);
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1] as string;
      // Everything up to the end of the previous request's messages (the closing "]}") is a prefix.
      const prefix = previous.slice(0, previous.lastIndexOf("]"));
      expect((bodies[i] as string).startsWith(prefix)).toBe(true);
    }
    if (format === "anthropic") {
      const last = rig.bodies().at(-1) as string;
      expect(last.split(CACHE_MARK).length - 1).toBe(2);
    }
    expect(readFileSync(join(onlyJournal(rig.home).dir, "journal.jsonl"), "utf8")).toContain('"final"');
  });
});
