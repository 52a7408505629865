// A relm process's keys stay out of its /proc/PID/environ (src/host/private-keys.ts): hidden in place
// when it was started with them, handed over on a pipe when relm starts it. Each case runs the built
// modules in a Node process of its own, as relm runs them.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnWithKeys } from "../../src/host/key-pipe.js";
import { cleanEnv, ROOT } from "../support/cli.js";

const MODULE = JSON.stringify(join(ROOT, "dist/host/private-keys.js"));

/** Hides, then reports what /proc/self/environ and process.env hold, and what a child it starts gets. */
const REPORT = `
  import { readFileSync } from "node:fs";
  import { execFileSync } from "node:child_process";
  const environ = () => readFileSync("/proc/self/environ", "utf8");
  const before = environ();
  const { keepKeysPrivate } = await import(${MODULE});
  const hidden = keepKeysPrivate();
  const child = execFileSync("sh", ["-c", 'printf "%s|%s" "$MY_API_KEY" "$PROXY"'], { env: process.env, encoding: "utf8" });
  process.stdout.write(JSON.stringify({ before, hidden, after: environ(), key: process.env.MY_API_KEY,
    proxy: process.env.PROXY, greeting: process.env.GREETING, fd: process.env.RELM_KEYS_FD ?? null, child }));
`;

function collect(child: ReturnType<typeof spawn>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.setEncoding("utf8").on("data", (d) => {
      out += d;
    });
    child.stderr?.setEncoding("utf8").on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as Record<string, unknown>);
      else reject(new Error(`exit ${code}: ${err}`));
    });
  });
}

// Multi-byte characters before and inside the values: the block is overwritten by byte offsets.
const KEY = "sk-täst-0123456789abcdef";
const PROXY = "http://user:pä55word@proxy.invalid:3128";
const GREETING = "héllo wörld";

describe.skipIf(process.platform !== "linux")("keys out of a relm process's own /proc/PID/environ", () => {
  it("started with keys: their values are overwritten in the block, kept in process.env and for children", async () => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", REPORT], {
      env: cleanEnv({ GREETING, MY_API_KEY: KEY, PROXY }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const seen = await collect(child);
    expect(seen.before).toContain(KEY);
    expect(seen.hidden).toEqual(expect.arrayContaining(["MY_API_KEY", "PROXY"]));
    expect(seen.after).not.toContain(KEY);
    expect(seen.after).not.toContain("pä55word");
    expect(seen.after).toContain(`MY_API_KEY=${"*".repeat(Buffer.byteLength(KEY))}\0`);
    expect(seen.after).toContain(`GREETING=${GREETING}\0`); // not a secret: left as it was
    expect({ key: seen.key, proxy: seen.proxy, greeting: seen.greeting }).toEqual({
      key: KEY,
      proxy: PROXY,
      greeting: GREETING,
    });
    expect(seen.child).toBe(`${KEY}|${PROXY}`);
  });

  it("started by relm: the keys come on a pipe, never in the block, and the pipe's name goes", async () => {
    const child = spawnWithKeys(
      process.execPath,
      ["--input-type=module", "-e", REPORT],
      { env: cleanEnv({ GREETING }), stdio: ["ignore", "pipe", "pipe"] },
      { MY_API_KEY: KEY, PROXY },
    );
    const seen = await collect(child);
    expect(seen.before).toContain("RELM_KEYS_FD=3\0");
    expect(seen.before).not.toContain(KEY);
    expect(seen.before).not.toContain("pä55word");
    expect(seen.hidden).toEqual([]);
    expect({ key: seen.key, proxy: seen.proxy, fd: seen.fd }).toEqual({ key: KEY, proxy: PROXY, fd: null });
    expect(seen.child).toBe(`${KEY}|${PROXY}`);
  });
});
