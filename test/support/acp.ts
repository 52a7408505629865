// An editor for `relm acp` tests: the ACP SDK's own client connection over the agent's real stdio.
import { type ChildProcess, spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import {
  client as acpClient,
  type ClientConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { RELM_BIN } from "./cli.js";
import type { Rig } from "./scripted.js";

export interface Editor {
  conn: ClientConnection;
  updates: SessionNotification[];
  stderr: () => string;
  /** Ends the agent process (as an editor closing does) and waits for it to exit. */
  close(): Promise<void>;
}

export function startEditor(rig: Rig, env: NodeJS.ProcessEnv = rig.env): Editor {
  const child: ChildProcess = spawn(process.execPath, [RELM_BIN, "acp"], {
    env,
    cwd: rig.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const updates: SessionNotification[] = [];
  const conn = acpClient({ name: "relm-test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .connect(stream);
  return {
    conn,
    updates,
    stderr: () => stderr,
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

/** The session's updates of one kind, in order. */
export function updatesOf<K extends SessionUpdate["sessionUpdate"]>(
  editor: Editor,
  sessionId: string,
  kind: K,
): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return editor.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update as Extract<SessionUpdate, { sessionUpdate: K }>);
}
