// A private OpenSSH server on 127.0.0.1 started by the tests themselves, for the ssh:// kernel
// launcher: `sshd -D -f CONFIG -p PORT` with a throw-away host key and client key under a temp dir,
// and a client config (`ssh -F`, or RELM_SSH_CONFIG for relm) so nothing reads or writes ~/.ssh.
// The server logs in as the current user with the client key only. Recipe: /work/shared/tools/sshd-up.sh.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { closedPort, tempDir } from "./cli.js";
import { until } from "./wait.js";

const exec = promisify(execFile);
const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((f) => existsSync(f));

export interface Sshd {
  /** The Host alias the client config defines (`ssh -F config HOST`). */
  readonly host: string;
  readonly port: number;
  /** The client config: give it to ssh with -F, to relm as RELM_SSH_CONFIG. */
  readonly config: string;
  /** Runs a command over ssh (through the remote shell); resolves with its stdout. */
  run(command: string): Promise<string>;
  /** Stops sshd (by pid) and deletes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** True where the tests can start sshd (installed; /run/sshd creatable). */
export function sshdAvailable(): boolean {
  return SSHD !== undefined;
}

export async function startSshd(): Promise<Sshd> {
  if (!SSHD) throw new Error("sshd is not installed (apt-get install openssh-server)");
  const dir = tempDir("relm-sshd-");
  const d = dir.path;
  const port = await closedPort();
  await exec("ssh-keygen", [
    "-q",
    "-t",
    "ed25519",
    "-N",
    "",
    "-C",
    "relm-test-host",
    "-f",
    join(d, "host_key"),
  ]);
  await exec("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "relm-test-client", "-f", join(d, "id")]);
  await exec("cp", [join(d, "id.pub"), join(d, "authorized_keys")]);
  // sshd's compiled-in privilege separation directory (needed as root; a user's sshd does without).
  try {
    mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  } catch {
    // not root: sshd says so itself if it needs it
  }
  const user = userInfo().username;
  writeFileSync(
    join(d, "sshd_config"),
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(d, "host_key")}`,
      `PidFile ${join(d, "sshd.pid")}`,
      `AuthorizedKeysFile ${join(d, "authorized_keys")}`,
      "PermitRootLogin prohibit-password",
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      "UseDNS no",
      "PrintMotd no",
      "PrintLastLog no",
      "X11Forwarding no",
      "MaxStartups 100:30:200",
      "MaxSessions 100",
      // Debian's bash reads ~/.bashrc for ssh commands unless SHLVL is set; it is not ours to run.
      "SetEnv SHLVL=1",
      "",
    ].join("\n"),
  );
  const host = "relm-test-ssh";
  const config = join(d, "ssh_config");
  writeFileSync(
    config,
    [
      `Host ${host}`,
      "  HostName 127.0.0.1",
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(d, "id")}`,
      "  IdentitiesOnly yes",
      "  BatchMode yes",
      "  StrictHostKeyChecking no",
      "  UserKnownHostsFile /dev/null",
      "  LogLevel ERROR",
      "  RequestTTY no",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(SSHD, ["-D", "-f", join(d, "sshd_config"), "-E", join(d, "sshd.log")], {
    stdio: "ignore",
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const run = async (command: string) =>
    (await exec("ssh", ["-F", config, host, command], { maxBuffer: 16 << 20 })).stdout;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      process.kill(child.pid!, "SIGTERM");
    } catch {
      // gone already
    }
    await exited;
    dir.cleanup();
  };
  try {
    await until(
      async () =>
        (await run("true").then(
          () => true,
          () => false,
        ))
          ? true
          : undefined,
      20_000,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { host, port, config, run, stop };
}
