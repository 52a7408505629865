import { spawn } from "node:child_process";
import { lstatSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { KernelStartError, scrubEnvironment } from "../../src/kernel/index.js";
import type { ForkingTemplate } from "../../src/kernel/template.js";
import { eventually } from "../support/wait.js";
import { starts, useForking } from "./fork-helpers.js";
import { isAlive, tempDir, testPython } from "./helpers.js";

const forking = useForking();

const BACKGROUND_SLEEP = "import subprocess\nsubprocess.Popen(['sleep', '60']).pid";

describe("the kernel template", () => {
  it("close() kills every kernel forked from it, and what their cells started", async () => {
    const template = await forking.template();
    const a = await forking.kernel(template);
    const b = await forking.kernel(template);
    const sleeper = Number((await a.execute(BACKGROUND_SLEEP)).output);
    forking.track(sleeper);
    await template.close();
    await template.close(); // idempotent
    expect(template.alive).toBe(false);
    expect(await eventually(() => !isAlive(template.pid))).toBe(true);
    expect(await eventually(() => !isAlive(a.pid) && !isAlive(b.pid) && !isAlive(sleeper))).toBe(true);
  });

  it("a template killed with SIGKILL takes its kernels with it", async () => {
    const template = await forking.template();
    const a = await forking.kernel(template);
    const b = await forking.kernel(template);
    const sleeper = Number((await b.execute(BACKGROUND_SLEEP)).output);
    forking.track(sleeper);
    process.kill(template.pid, "SIGKILL");
    expect(await eventually(() => !isAlive(a.pid) && !isAlive(b.pid) && !isAlive(sleeper))).toBe(true);
    expect(await eventually(() => !template.alive)).toBe(true);
  });

  it("when the template is dead, kernels are spawned instead (and the reason is given)", async () => {
    const template = await forking.template();
    const forked = await forking.kernel(template);
    await forked.execute("x = 1");
    await template.close();
    const spawned = await forking.kernel(template);
    const started = starts(forking.events);
    expect(started.at(-1)).toMatchObject({ pid: spawned.pid });
    expect(started.at(-1)?.forkedFrom).toBeUndefined();
    expect(started.at(-1)?.fallback).toMatch(/template is not running/);
    expect((await spawned.execute("print('spawned')")).output).toBe("spawned\n");
    // The forked kernel died with the template: restarted the normal way, and the model is told.
    const r = await forked.execute("'x' in dir()");
    expect(r.output).toBe("False\n");
    expect(r.note).toMatch(/died between cells/);
  });

  it("a kernel that cannot start (missing cwd) fails as a spawned one would, leaving nothing behind", async () => {
    const template = await forking.template();
    const missing = path.join(await tempDir(), "missing");
    await expect(forking.kernel(template, { cwd: missing })).rejects.toBeInstanceOf(KernelStartError);
    // The template is unharmed.
    const kernel = await forking.kernel(template);
    expect((await kernel.execute("1")).output).toBe("1\n");
  });

  it("spawns kernels whose Python start-up environment differs from the template's", async () => {
    const template = await forking.template({ env: { ...process.env, PYTHONHASHSEED: "1" } });
    const kernel = await forking.kernel(template, { env: { ...process.env, PYTHONHASHSEED: "2" } });
    expect(starts(forking.events)[0]?.fallback).toMatch(/PYTHONHASHSEED/);
    expect((await kernel.execute("import os\nos.environ['PYTHONHASHSEED']")).output).toBe("'2'\n");
  });

  it("listens on a private socket and drops connections with an unknown token", async () => {
    const socketDir = path.join(await tempDir(), "sockets");
    const template = (await forking.template({ socketDir })) as ForkingTemplate;
    expect(path.dirname(template.server.path)).toBe(socketDir);
    expect(lstatSync(socketDir).mode & 0o777).toBe(0o700);
    expect(lstatSync(template.server.path).mode & 0o777).toBe(0o600);
    const socket = connect(template.server.path);
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.on("error", () => {});
    socket.write(`${JSON.stringify({ token: "0".repeat(32), channel: "protocol" })}\n`);
    await closed;
    // The template still serves its own kernels.
    const kernel = await forking.kernel(template);
    expect((await kernel.execute("1 + 1")).output).toBe("2\n");
    await template.close();
    expect(() => lstatSync(template.server.path)).toThrow();
  });

  it("a host killed with SIGKILL leaves no template, kernel or cell subprocess behind", async () => {
    const python = await testPython();
    const dir = await tempDir();
    // A stand-in host (Node's exit hook cannot run on SIGKILL): starts a template, has it fork a
    // kernel whose cell starts a background process, prints the pids, then dies without cleanup.
    const host = `
import json, os, signal, socket, subprocess, sys
path = os.path.join(${JSON.stringify(dir)}, "s.sock")
server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen()
template = subprocess.Popen([sys.executable, "-m", "relm.template"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, start_new_session=True)
template.stdout.readline()
fork = {"type": "fork", "id": 1, "token": "t", "socket": path, "cwd": "/", "env": dict(os.environ),
        "output_dir": None, "first_count": 1}
template.stdin.write((json.dumps(fork) + "\\n").encode()); template.stdin.flush()
kernel = json.loads(template.stdout.readline())["pid"]
channels = {}
for _ in range(2):
    conn, _ = server.accept(); f = conn.makefile("rwb")
    channels[json.loads(f.readline())["channel"]] = f
proto = channels["protocol"]
proto.readline()
cell = {"type": "execute", "id": 1, "code": ${JSON.stringify(BACKGROUND_SLEEP)}, "cap": 1000}
proto.write((json.dumps(cell) + "\\n").encode()); proto.flush()
while True:
    msg = json.loads(proto.readline())
    if msg["type"] == "result": break
print(template.pid, kernel, msg["output"].strip(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
`;
    const child = spawn(python.path, ["-c", host], {
      env: scrubEnvironment(process.env),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
    });
    await new Promise((resolve) => child.once("close", resolve));
    const pids = out.trim().split(" ").map(Number);
    expect(pids).toHaveLength(3);
    for (const pid of pids) {
      expect(pid).toBeGreaterThan(0);
      forking.track(pid);
    }
    expect(await eventually(() => pids.every((pid) => !isAlive(pid)))).toBe(true);
  });
});
