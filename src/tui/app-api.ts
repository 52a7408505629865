import type { Editor, TUI } from "@mariozechner/pi-tui";
import type { AgentEvent } from "../agent/core/events.js";
import type { PendingStart } from "../commands/types.js";
import type { AgentPanel } from "./agents/agent-panel.js";
import type { AgentsModel } from "./agents/agents-model.js";
import type { DialogHost } from "./dialogs/dialogs.js";
import type { InputHistory } from "./input/history.js";
import type { ImageAttachments } from "./input/images.js";
import type { Pastes } from "./input/pastes.js";
import type { SessionInfo, SessionLink } from "./session-link.js";
import type { Theme } from "./theme.js";

/** What slash commands may use of the running UI. */
export interface AppApi {
  readonly tui: TUI;
  readonly theme: Theme;
  readonly dialogs: DialogHost;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly home: string;
  readonly link: SessionLink;
  readonly agents: AgentsModel;
  readonly info: SessionInfo | undefined;
  /** Model and provider new sessions start with (config, or what /model chose before the first message). */
  readonly configured: Configured;
  /** Chosen before the first message; sent with it when the session starts. */
  readonly pending: PendingStart;
  readonly busy: boolean;
  /** The root agent's last answer in this session (/copy). */
  readonly lastAnswer: string | undefined;
  /** A line in the transcript from the UI itself. */
  note(text: string): void;
  refreshInfo(): void;
  /** Makes sure a host serves the session (revives an exited one); false when there is no session yet. */
  ensureLive(options?: { continueWork?: boolean }): Promise<boolean>;
  openSession(id: string): Promise<void>;
  newSession(clearScreen: boolean): Promise<void>;
  login(): Promise<void>;
  quit(): Promise<void>;
  detach(): void;
  focusAgents(): void;
  setExpanded(expanded: boolean): void;
  showHelp(): void;
}

/** A model endpoint as the UI starts new sessions with it; `via` names it as the person chose it. */
export interface Configured {
  model: string;
  provider: string;
  via: string;
  baseUrl: string;
  apiKey?: string;
  preset?: string;
}

/** What the UI's key handling, child views and login use of the running app (its parts, not its logic). */
export interface AppControl extends AppApi {
  readonly editor: Editor;
  readonly panel: AgentPanel;
  readonly history: InputHistory;
  readonly pastes: Pastes;
  /** Images the input holds (ctrl+v, a dropped image file), sent with the next message. */
  readonly images: ImageAttachments;
  readonly pasteThreshold: number;
  interrupt(): void;
  toggleExpanded(): void;
  /** shift+tab: the next permission mode. */
  cycleMode(): Promise<void>;
  unfocusAgents(): void;
  reloadConfigured(): void;
  /** The newest cell output the UI holds only part of: its full file (tui/transcript/output-pager.ts). */
  lastFullOutput(): string | undefined;
  /** A sub-agent's streamed output not yet in its journal. */
  liveEvents(id: string): AgentEvent[];
}
