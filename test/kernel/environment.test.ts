import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RELM_PYTHON_DIR, scrubEnvironment, withSkillPath } from "../../src/kernel/index.js";
import { useKernels } from "./helpers.js";

const start = useKernels();

const SECRETS = {
  FOO_API_KEY: "k1",
  GITHUB_TOKEN: "k2",
  MY_SECRET_X: "k3",
  OPENAI_BASE_URL: "http://example.invalid",
  RELM_API_KEY: "k4",
  anthropic_api_key: "k5",
  DB_PASSWORD: "k6",
  MY_APP_CREDENTIALS: "k7",
  GOOGLE_APPLICATION_CREDENTIALS: "/home/u/key.json",
  SSH_PRIVATE_KEY: "k8",
  BASIC_AUTH: "user:pw",
  npm_config__auth: "k9",
  HTTP_AUTHORIZATION: "Bearer k10",
  SMTP_PASS: "k11",
};

/** Names with AUTH, PASS or KEY in them that are not secrets (whole words only). */
const ORDINARY = {
  GIT_AUTHOR_NAME: "Ada",
  OAUTH_CALLBACK_PORT: "8765",
  AUTH_MODE: "basic",
  AUTH_URL: "https://auth.example/",
  SSH_AUTH_SOCK: "/tmp/ssh-x/agent.1",
  PASSTHROUGH: "1",
  KEYBOARD: "us",
  CREDENTIALING_BODY: "x",
};

describe("scrubEnvironment", () => {
  it("drops secrets, keeps the rest and sets up Python", () => {
    const env = scrubEnvironment({ ...SECRETS, HOME: "/home/u", PYTHONPATH: "/extra", TOKENIZER: "keep" });
    for (const name of Object.keys(SECRETS)) expect(env[name]).toBeUndefined();
    expect(env.HOME).toBe("/home/u");
    expect(env.TOKENIZER).toBe("keep");
    expect(env.PYTHONUNBUFFERED).toBe("1");
    expect(env.PYTHONPATH).toBe(`${RELM_PYTHON_DIR}:/extra`);
  });

  it("drops values that are URLs with a password, whatever their name, and keeps other URLs", () => {
    const env = scrubEnvironment({
      DATABASE_URL: "postgres://app:s3cret-pw@db.internal:5432/prod",
      HTTPS_PROXY: "http://proxy-user:proxy-pass@proxy:3128",
      CACHE: "redis://:only-a-password@cache:6379/0",
      REPO_URL: "ssh://git@github.com/org/repo.git",
      SERVICE_URL: "http://localhost:8080/api?x=a@b",
    });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect(env.CACHE).toBeUndefined();
    expect(env.REPO_URL).toBe("ssh://git@github.com/org/repo.git");
    expect(env.SERVICE_URL).toBe("http://localhost:8080/api?x=a@b");
    expect(scrubEnvironment({ DATABASE_URL: "postgres://a:b@h/d" }, ["database_url"]).DATABASE_URL).toBe(
      "postgres://a:b@h/d",
    );
  });

  it("lets names in passEnv through", () => {
    const env = scrubEnvironment(SECRETS, ["github_token"]);
    expect(env.GITHUB_TOKEN).toBe("k2");
    expect(env.FOO_API_KEY).toBeUndefined();
  });

  it("matches CREDENTIAL(S), PRIVATE_KEY, AUTH and PASS as whole words, not inside AUTHOR or OAUTH", () => {
    const env = scrubEnvironment({ ...SECRETS, ...ORDINARY });
    expect(Object.keys(SECRETS).filter((name) => name in env)).toEqual([]);
    for (const [name, value] of Object.entries(ORDINARY)) expect(env[name], name).toBe(value);
    expect(scrubEnvironment(SECRETS, ["my_app_credentials"]).MY_APP_CREDENTIALS).toBe("k7");
  });
});

describe("kernel environment", () => {
  const probe = `import os, json\nprint(json.dumps(sorted(k for k in os.environ if k in ${JSON.stringify(Object.keys(SECRETS))})))`;

  it("has no secrets from the host environment", async () => {
    const kernel = await start({ env: { ...process.env, ...SECRETS } });
    const r = await kernel.execute(probe);
    expect(JSON.parse(r.output)).toEqual([]);
  });

  it("has no DATABASE_URL with a password in it", async () => {
    const kernel = await start({
      env: { ...process.env, DATABASE_URL: "postgresql://app:pw-1234567@db/x", PLAIN_URL: "http://h/" },
    });
    const r = await kernel.execute(
      "import os\nprint(os.environ.get('DATABASE_URL'), os.environ.get('PLAIN_URL'))",
    );
    expect(r.output.trim()).toBe("None http://h/");
  });

  it("gets variables named in passEnv", async () => {
    const kernel = await start({
      env: { ...process.env, ...SECRETS },
      passEnv: ["GITHUB_TOKEN", "MY_APP_CREDENTIALS"],
    });
    const r = await kernel.execute(probe);
    expect(JSON.parse(r.output)).toEqual(["GITHUB_TOKEN", "MY_APP_CREDENTIALS"]);
  });

  it("has no editor to wait for: git commit without -m fails at once and says to use -m", async () => {
    // It opened vi on a kernel without a terminal and waited until the cell timed out (300 s). The
    // host's EDITOR (vi here) is no use either: no terminal can ever show it.
    const repo = mkdtempSync(join(os.tmpdir(), "relm-editor-"));
    try {
      const kernel = await start({ cwd: repo, env: { ...process.env, EDITOR: "vi", VISUAL: "vi" } });
      const r = await kernel.execute(
        "!git init -q . && git -c user.email=a@b -c user.name=n commit -q --allow-empty 2>&1",
        { timeoutMs: 60_000 },
      );
      expect(r.status).toBe("ok");
      expect(r.shellExitCode).toBe(1);
      expect(r.output).toMatch(/problem with the editor[\s\S]*-m or -F/);
      const env = await kernel.execute("import os\nprint(os.environ['EDITOR'], os.environ['VISUAL'])");
      expect(env.output).toBe("false false\n");
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  }, 120_000);

  it("runs in the given cwd", async () => {
    const kernel = await start({ cwd: "/" });
    expect((await kernel.execute("import os; os.getcwd()")).output).toBe("'/'\n");
  });
});

describe("skill folders (RELM_SKILL_PATH, python/relm/skillpath.py)", () => {
  it("are the session's own, not PYTHONPATH, and come last on the kernel's sys.path", async () => {
    const inherited = { PYTHONPATH: "/extra", RELM_SKILL_PATH: "/a/kernel/that/started/relm" };
    expect(withSkillPath(inherited, [])).toEqual({ PYTHONPATH: "/extra" });
    const env = withSkillPath({ ...process.env, ...inherited }, ["/s/one", "/s/two"]);
    expect(env.PYTHONPATH).toBe("/extra");
    const kernel = await start({ env });
    const r = await kernel.execute(
      "import sys; print(sys.path[-2:], sys.path.index('/extra') < sys.path.index('/s/one'))",
    );
    expect(r.output).toBe("['/s/one', '/s/two'] True\n");
  });
});
