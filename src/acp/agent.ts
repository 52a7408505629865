// `relm acp`: relm as an Agent Client Protocol agent on stdio, for Zed, JetBrains IDEs, Neovim plugins
// and any ACP client (docs/editors.md). Each editor thread is a relm session served by its own host;
// this process is a client of those hosts and holds no kernel.

import { existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import {
  type AgentCapabilities,
  type AuthMethod,
  agent,
  type ClientCapabilities,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { noModelMessage, relmHomeFrom, resolveConfig } from "../config/config.js";
import type { SessionSpec } from "../config/options.js";
import { relmVersion } from "../config/version.js";
import { listSessions } from "../host/states/discovery.js";
import { editorMcpFile, JOURNAL_FILE, newSessionId, sessionDir } from "../session/index.js";
import type { PermissionAsker } from "./approvals.js";
import { availableCommands } from "./commands.js";
import { writeEditorServers } from "./mcp-servers.js";
import { AcpSession, MODES, PromptError, type SessionContext } from "./session.js";
import { stdioStream } from "./stdio-stream.js";

interface AcpOptions {
  env: NodeJS.ProcessEnv;
  /** Options every session host is started with (model, endpoint, budgets…). */
  hostSpec: SessionSpec;
  stderr: NodeJS.WritableStream;
}

const CAPABILITIES: AgentCapabilities = {
  loadSession: true,
  // Files the editor embeds become kernel variables; images and audio are not taken.
  promptCapabilities: { image: false, audio: false, embeddedContext: true },
  // The editor's servers of every transport become the session's own (mcp-servers.ts).
  mcpCapabilities: { http: true, sse: true },
  sessionCapabilities: { list: {} },
};

/** How to sign in, mirroring `relm login` (the editor runs it in a terminal when it can). */
function authMethods(client: ClientCapabilities | undefined): AuthMethod[] {
  const login: AuthMethod = client?.auth?.terminal
    ? {
        type: "terminal",
        id: "relm-login",
        name: "relm login",
        description: "Choose the provider, endpoint, model and API key; saved to ~/.relm/config.json (0600).",
        args: ["login"],
      }
    : {
        id: "relm-login",
        name: "relm login",
        description:
          "Run `relm login` in a terminal (provider, endpoint, model and key, saved to ~/.relm/config.json), then try again.",
      };
  return [
    login,
    {
      id: "environment",
      name: "Environment variables",
      description:
        "Set RELM_MODEL and a key (RELM_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY; RELM_BASE_URL for another endpoint) in the agent server's env.",
    },
  ];
}

/** A model is configured (relm login, or the environment): otherwise the client is asked to sign in. */
function requireModel(env: NodeJS.ProcessEnv): void {
  let configured = false;
  try {
    configured = Boolean(resolveConfig(env).model.model);
  } catch (error) {
    throw RequestError.authRequired(undefined, (error as Error).message);
  }
  if (!configured) throw RequestError.authRequired(undefined, noModelMessage());
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams(undefined, `cwd must be an absolute path, got ${cwd}`);
  let dir = false;
  try {
    dir = statSync(cwd).isDirectory();
  } catch {}
  if (!dir) throw RequestError.invalidParams(undefined, `cwd ${cwd} is not a directory`);
}

export async function runAcp(options: AcpOptions): Promise<number> {
  const home = relmHomeFrom(options.env);
  const sessions = new Map<string, AcpSession>();
  let clientCapabilities: ClientCapabilities | undefined;
  let send: (sessionId: string, update: SessionUpdate) => Promise<void> = async () => {};
  let askPermission: PermissionAsker = () => Promise.reject(new Error("not connected"));
  const ctx: SessionContext = {
    home,
    env: options.env,
    hostSpec: options.hostSpec,
    send: (sessionId, update) => send(sessionId, update),
    askPermission: (params, signal) => askPermission(params, signal),
  };

  /**
   * The editor's MCP servers become the session's own (src/acp/mcp-servers.ts): the file its host is
   * started with. A host already running keeps the servers it started with (said in the log).
   */
  const useMcpServers = (session: AcpSession, servers: McpServer[], live = false) => {
    session.mcpConfig = writeEditorServers(home, session.id, servers);
    if (servers.length === 0) return;
    const names = servers.map((s) => s.name).join(", ");
    options.stderr.write(
      live
        ? `relm: session ${session.id} is running; its host keeps the MCP servers it started with (the editor's ${names} apply when it is revived)\n`
        : `relm: session ${session.id} gets the editor's MCP servers: ${names}\n`,
    );
  };

  const publishCommands = (session: AcpSession) =>
    setTimeout(() => {
      void send(session.id, {
        sessionUpdate: "available_commands_update",
        availableCommands: availableCommands(session.cwd, home),
      }).catch(() => undefined);
    }, 0);

  /** A session id the editor gave: one with a journal here. */
  const checkKnown = (id: string) => {
    if (!/^[0-9a-z]{8}$/.test(id) || !existsSync(join(sessionDir(home, id), JOURNAL_FILE)))
      throw RequestError.resourceNotFound(id);
  };

  /** A session this client has not opened in this process is taken up without replaying it. */
  const sessionOf = async (id: string): Promise<AcpSession> => {
    const known = sessions.get(id);
    if (known) return known;
    checkKnown(id);
    const session = await AcpSession.load(id, ctx, false);
    // The servers an earlier session/new or session/load of it gave, if it was revived.
    const editorServers = editorMcpFile(home, id);
    if (existsSync(editorServers)) session.mcpConfig = editorServers;
    sessions.set(id, session);
    return session;
  };

  const app = agent({ name: "relm" })
    .onRequest("initialize", ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: CAPABILITIES,
        authMethods: authMethods(clientCapabilities),
        agentInfo: { name: "relm", title: "relm", version: relmVersion() },
      };
    })
    .onRequest("authenticate", () => {
      requireModel(options.env);
      return {};
    })
    .onRequest("session/new", ({ params }) => {
      requireModel(options.env);
      checkCwd(params.cwd);
      const session = AcpSession.create(newSessionId(), params.cwd, ctx);
      useMcpServers(session, params.mcpServers);
      sessions.set(session.id, session);
      publishCommands(session);
      return { sessionId: session.id, modes: { currentModeId: session.modeId, availableModes: MODES } };
    })
    .onRequest("session/load", async ({ params }) => {
      const id = params.sessionId;
      checkKnown(id);
      sessions.get(id)?.detach();
      const session = await AcpSession.load(id, ctx).catch((error: Error) => {
        throw RequestError.internalError(undefined, `session ${id}: ${error.message}`);
      });
      useMcpServers(session, params.mcpServers, session.live);
      sessions.set(id, session);
      publishCommands(session);
      return { modes: { currentModeId: session.modeId, availableModes: MODES } };
    })
    .onRequest("session/list", async ({ params }) => {
      const all = await listSessions(home);
      return {
        sessions: all
          .filter((s) => !params.cwd || s.cwd === params.cwd)
          .slice(0, 500)
          .map((s) => ({ sessionId: s.id, cwd: s.cwd, title: s.title || null, updatedAt: s.lastActivity })),
      };
    })
    .onRequest("session/prompt", async ({ params }) => {
      const session = await sessionOf(params.sessionId);
      try {
        return { stopReason: await session.prompt(params.prompt) };
      } catch (error) {
        throw error instanceof PromptError ? RequestError.internalError(undefined, error.message) : error;
      }
    })
    .onRequest("session/set_mode", async ({ params }) => {
      const session = await sessionOf(params.sessionId);
      try {
        await session.setMode(params.modeId);
      } catch (error) {
        if (error instanceof PromptError) throw RequestError.invalidParams(undefined, error.message);
        throw error;
      }
      return {};
    })
    .onNotification("session/cancel", async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    });

  // Not the SDK's ndJsonStream: one message too large must fail alone, not end the connection.
  const stream = stdioStream(process.stdin, process.stdout);
  const connection = app.connect(stream);
  send = (sessionId, update) => connection.client.notify("session/update", { sessionId, update });
  askPermission = (params, signal) =>
    connection.client.request("session/request_permission", params, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    });
  options.stderr.write(`relm ${relmVersion()}: ACP agent on stdio (RELM_HOME ${home})\n`);
  await connection.closed;
  // The editor went away: the sessions go on in their hosts (relm agents lists them; they idle out).
  for (const session of sessions.values()) session.detach();
  return 0;
}
