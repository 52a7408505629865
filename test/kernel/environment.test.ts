import { describe, expect, it } from "vitest";
import { RELM_PYTHON_DIR, scrubEnvironment } from "../../src/kernel/index.js";
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

  it("lets names in passEnv through", () => {
    const env = scrubEnvironment(SECRETS, ["github_token"]);
    expect(env.GITHUB_TOKEN).toBe("k2");
    expect(env.FOO_API_KEY).toBeUndefined();
  });
});

describe("kernel environment", () => {
  const probe = `import os, json\nprint(json.dumps(sorted(k for k in os.environ if k in ${JSON.stringify(Object.keys(SECRETS))})))`;

  it("has no secrets from the host environment", async () => {
    const kernel = await start({ env: { ...process.env, ...SECRETS } });
    const r = await kernel.execute(probe);
    expect(JSON.parse(r.output)).toEqual([]);
  });

  it("gets variables named in passEnv", async () => {
    const kernel = await start({ env: { ...process.env, ...SECRETS }, passEnv: ["GITHUB_TOKEN"] });
    const r = await kernel.execute(probe);
    expect(JSON.parse(r.output)).toEqual(["GITHUB_TOKEN"]);
  });

  it("runs in the given cwd", async () => {
    const kernel = await start({ cwd: "/" });
    expect((await kernel.execute("import os; os.getcwd()")).output).toBe("'/'\n");
  });
});
