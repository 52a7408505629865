// The bubblewrap command line of a sandboxed kernel process. Pure: the paths given are already
// resolved and known to exist (linux.ts does that); this only orders the mounts and picks the flags.

/** Inside the sandbox: where the host's network proxy socket appears, and the forwarder's port. */
export const NET_SOCKET_INSIDE = "/run/relm-net/proxy.sock";
export const PROXY_PORT = 3128;

export interface BwrapPlan {
  /** Network: none (own empty namespace), all (the host's), or through the host's proxy socket. */
  net: "none" | "all" | { proxySocket: string; forwarder: string; python: string };
  project: string;
  /** Permission mode plan: the project is bound read-only (nothing in it needs protecting then). */
  readOnlyProject?: boolean;
  writable: string[];
  /** Directories hidden under an empty tmpfs (RELM_HOME, the fork sockets' dir, $HOME in strict mode). */
  hidden: string[];
  /** Shown read-only at `dest` (the path the kernel is given), from `src` (its real path). */
  readable: { src: string; dest: string }[];
  /** Unix sockets bound in at their own path (the warm template's fork socket). */
  sockets: string[];
  /** Files under /run that must stay visible (e.g. /etc/resolv.conf's target). */
  runFiles: string[];
  /** GPU and similar device nodes passed through (/dev/nvidia*, /dev/dri). */
  devices: string[];
  /** Whether bwrap runs with privileges (as root): then capabilities must be dropped explicitly. */
  root: boolean;
  /** Inside the project: shown read-only (what the host obeys), and folders bound onto themselves. */
  readOnly: string[];
  pinned: string[];
}

type Mount =
  | { op: "--tmpfs"; dest: string }
  | { op: "--ro-bind" | "--bind" | "--dev-bind"; src: string; dest: string };

function depth(p: string): number {
  return p === "/" ? 0 : p.split("/").length - 1;
}

/**
 * `bwrap [flags] [mounts] -- argv`. Mounts are ordered parents first (a stable sort by depth), so a
 * writable project below a hidden /tmp or $HOME is bound after the tmpfs that hides its parent, and a
 * hidden RELM_HOME inside the project is laid over the project's bind.
 */
/**
 * `relmProcess`: the command is relm's kernel runner or warm template, which starts the network
 * forwarder itself; any other command (a gate, a hook, an MCP server) gets it started in front of it.
 */
export function bwrapArgs(plan: BwrapPlan, argv: string[], cwd: string, relmProcess = false): string[] {
  const flags = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  if (plan.net !== "all") flags.push("--unshare-net");
  // As root bwrap keeps every capability inside, and a cell could remount / read-write.
  if (plan.root) flags.push("--cap-drop", "ALL");
  const mounts: Mount[] = [
    { op: "--tmpfs", dest: "/tmp" },
    { op: "--tmpfs", dest: "/run" }, // the host's service sockets: docker, dbus, systemd
    { op: "--tmpfs", dest: "/dev/shm" },
    ...plan.hidden.map((dest): Mount => ({ op: "--tmpfs", dest })),
    ...plan.runFiles.map((p): Mount => ({ op: "--ro-bind", src: p, dest: p })),
    ...plan.readable.map(({ src, dest }): Mount => ({ op: "--ro-bind", src, dest })),
    ...plan.devices.map((p): Mount => ({ op: "--dev-bind", src: p, dest: p })),
    ...(plan.readOnlyProject
      ? // Read-only whole: a pinned folder bound writable would open a hole in it.
        [{ op: "--ro-bind", src: plan.project, dest: plan.project } as Mount]
      : [
          { op: "--bind", src: plan.project, dest: plan.project } as Mount,
          // Deeper than the project, so after it; a pinned folder before the read-only path below it.
          ...plan.pinned.map((p): Mount => ({ op: "--bind", src: p, dest: p })),
          ...plan.readOnly.map((p): Mount => ({ op: "--ro-bind", src: p, dest: p })),
        ]),
    ...plan.writable.map((p): Mount => ({ op: "--bind", src: p, dest: p })),
    ...plan.sockets.map((p): Mount => ({ op: "--bind", src: p, dest: p })),
  ];
  if (typeof plan.net === "object")
    mounts.push({ op: "--bind", src: plan.net.proxySocket, dest: NET_SOCKET_INSIDE });
  // At equal depth a tmpfs goes first, so a project that is itself /tmp (or $HOME) is bound over it.
  const order = (m: Mount) => depth(m.dest) * 2 + (m.op === "--tmpfs" ? 0 : 1);
  const sorted = mounts
    .map((m, i) => ({ m, i }))
    .sort((a, b) => order(a.m) - order(b.m) || a.i - b.i)
    .map(({ m }) => m);
  const args = [...flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const m of sorted) {
    if (m.op === "--tmpfs") args.push("--tmpfs", m.dest);
    else args.push(m.op, m.src, m.dest);
  }
  args.push("--chdir", cwd, "--");
  // A kernel or template forks the forwarder off itself (RELM_NETFWD, relm.netfwd.start_beside): a second
  // interpreter in front of every kernel cost +74..229 ms per start (docs/benchmarks.md).
  if (typeof plan.net === "object" && !relmProcess) {
    // The forwarder binds 127.0.0.1:PORT inside, then goes to the background; the command starts after.
    const script = '"$1" -I -S "$2" "$3" "$4" || exit 1; shift 4; exec "$@"';
    const { python, forwarder } = plan.net;
    args.push(
      "/bin/sh",
      "-c",
      script,
      "relm-sandbox",
      python,
      forwarder,
      NET_SOCKET_INSIDE,
      String(PROXY_PORT),
    );
  }
  args.push(...argv);
  return args;
}
