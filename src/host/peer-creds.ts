// The pid of the process on the other end of an accepted Unix socket (Linux SO_PEERCRED), for a host
// that cannot ask the kernel itself: Node exposes no getsockopt and relm installs without a compiler.
// A small Python helper (python/relm/peercred.py) receives the connection's fd over Node's IPC channel
// and answers with the pid. It starts with the first connection that needs it and exits after a
// minute without one; one question costs one IPC round trip (bench/peer-check.mjs).
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import path from "node:path";
import { RELM_PYTHON_DIR, scrubEnvironment } from "../kernel/index.js";
import { classifyPeer, type Peer } from "./peer.js";

const ANSWER_TIMEOUT_MS = 10_000;
const IDLE_EXIT_MS = 60_000;
const STDERR_KEEP = 2048;

interface Waiting {
  /** The helper asked: when it ends, only its questions go unanswered. */
  via: ChildProcess;
  resolve: (pid: number) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Who each client of a session socket is (src/host/peer.ts). Only Linux can tell: elsewhere every
 * client is taken for the user, as docs/sessions.md says.
 */
export class PeerIdentifier {
  private helper: ChildProcess | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private idleTimer: NodeJS.Timeout | undefined;
  private stderr = "";
  private closed = false;

  /** `python`: an interpreter to run the helper with (the session's own). */
  constructor(private readonly python: string) {}

  /** Never rejects: a client that could not be identified is `unknown` (and not the user). */
  async identify(socket: Socket): Promise<Peer> {
    if (process.platform !== "linux") return { kind: "user" };
    try {
      return classifyPeer(await this.pidOf(socket));
    } catch (error) {
      return { kind: "unknown", reason: (error as Error).message };
    }
  }

  /** Rejects when the connection is already closed or the helper cannot answer. */
  private pidOf(socket: Socket): Promise<number> {
    // The connection's native handle: sent as `net.Native`, Node passes its fd and keeps it open here.
    const handle = (socket as unknown as { _handle?: object | null })._handle;
    if (!handle || socket.destroyed) return Promise.reject(new Error("the client has disconnected"));
    if (this.closed) return Promise.reject(new Error("the session host is closing"));
    const helper = this.running();
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(
          id,
          new Error(`the peer-credentials helper did not answer within ${ANSWER_TIMEOUT_MS} ms`),
        );
        this.stop(); // a stuck helper would hold every later question up: start afresh
      }, ANSWER_TIMEOUT_MS);
      this.waiting.set(id, { via: helper, resolve, reject, timer });
      try {
        helper.send({ id }, handle as never, (error) => {
          if (error) this.settle(id, error);
        });
      } catch (error) {
        this.settle(id, error as Error);
      }
    });
  }

  /**
   * Gets ready for clients (a host that expects them: the first one need not wait for the helper): starts
   * it ahead of the first question (it exits again after a minute without one).
   */
  warm(): void {
    if (this.closed || process.platform !== "linux") return;
    this.running();
    if (this.waiting.size === 0) this.armIdle();
  }

  /** Stops the helper; later questions are refused. */
  close(): void {
    this.closed = true;
    this.stop();
  }

  private running(): ChildProcess {
    if (this.helper?.connected) return this.helper;
    const child = spawn(this.python, ["-I", "-S", path.join(RELM_PYTHON_DIR, "relm", "peercred.py")], {
      env: scrubEnvironment(process.env),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    this.helper = child;
    this.stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      this.stderr = (this.stderr + text).slice(-STDERR_KEEP);
    });
    child.on("message", (message: { id?: unknown; pid?: unknown; error?: unknown }) => {
      if (typeof message?.id !== "number") return;
      if (typeof message.pid === "number" && message.pid > 0) this.settle(message.id, message.pid);
      else this.settle(message.id, new Error(String(message.error ?? "no pid in the helper's answer")));
    });
    child.on("error", (error) => this.failAll(child, error));
    child.on("exit", (code, signal) => {
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      const said = this.stderr.trim();
      this.failAll(child, new Error(`the peer-credentials helper ended (${how})${said ? `: ${said}` : ""}`));
    });
    // It must never keep the host alive; a pending question holds a timer of its own.
    child.unref();
    child.channel?.unref();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
    return child;
  }

  private settle(id: number, outcome: number | Error): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (typeof outcome === "number") w.resolve(outcome);
    else w.reject(outcome);
    if (this.waiting.size === 0) this.armIdle();
  }

  private failAll(child: ChildProcess, error: Error): void {
    if (this.helper === child) this.helper = undefined;
    for (const [id, w] of [...this.waiting]) if (w.via === child) this.settle(id, error);
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(), IDLE_EXIT_MS);
    this.idleTimer.unref();
  }

  private stop(): void {
    clearTimeout(this.idleTimer);
    const helper = this.helper;
    this.helper = undefined;
    if (!helper) return;
    if (helper.connected) helper.disconnect(); // EOF: it exits
    helper.kill();
  }
}
