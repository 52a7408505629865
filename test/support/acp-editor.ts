// The one editor for `relm acp` tests: the ACP SDK's own client connection over the agent's real stdio pipes, as
// Zed or another editor would drive it.
import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { RELM_BIN } from "./cli.js";
import type { Rig } from "./scripted.js";

export interface Editor {
  child: ChildProcess;
  conn: ClientConnection;
  updates: SessionNotification[];
  stderr: () => string;
  /** Whether the agent's stderr pipe has reached end of file: every process holding it has closed it. */
  stderrEnded: () => boolean;
  /** Whether the `relm acp` process has exited. */
  exited: () => boolean;
  /** Ends the agent process (as an editor closing does) and waits for it to exit. */
  close(): Promise<void>;
}

/** How the editor answers `session/request_permission`; without one it has no such method. */
/** `signal` aborts when relm takes the question back (`$/cancel_request`). */
export type PermissionAnswer = (
  params: RequestPermissionRequest,
  signal: AbortSignal,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export function startEditor(
  rig: Rig,
  env: NodeJS.ProcessEnv = rig.env,
  onPermission?: PermissionAnswer,
): Editor {
  const child: ChildProcess = spawn(process.execPath, [RELM_BIN, "acp"], {
    env,
    cwd: rig.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  let stderrEnded = false;
  let hasExited = false;
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  child.stderr?.on("end", () => {
    stderrEnded = true;
  });
  const exited = new Promise<void>((resolve) =>
    child.on("exit", () => {
      hasExited = true;
      resolve();
    }),
  );
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const updates: SessionNotification[] = [];
  const app = acpClient({ name: "relm-test-editor" }).onNotification("session/update", ({ params }) => {
    updates.push(params);
  });
  const conn = (
    onPermission
      ? app.onRequest("session/request_permission", ({ params, signal }) => onPermission(params, signal))
      : app
  ).connect(stream);
  return {
    child,
    conn,
    updates,
    stderr: () => stderr,
    stderrEnded: () => stderrEnded,
    exited: () => hasExited,
    close: async () => {
      conn.close();
      child.stdin?.end();
      await exited;
    },
  };
}

export async function initialize(editor: Editor) {
  return editor.conn.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "test", version: "1" },
  });
}

/** The updates of one kind the editor received for a session, in order. */
export function updatesOf<K extends SessionUpdate["sessionUpdate"]>(
  editor: Editor,
  sessionId: string,
  kind: K,
): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return editor.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update as Extract<SessionUpdate, { sessionUpdate: K }>);
}

export function contentText(content: unknown): string {
  return ((content ?? []) as { content?: { text?: string } }[]).map((c) => c.content?.text ?? "").join("\n");
}

/** A cell's output in its tool call (the content after the code block). */
export function outputText(content: unknown): string {
  return contentText(((content ?? []) as unknown[]).slice(1));
}
