// The terminal UI: one screen with the transcript, the agent panel, what is queued, what the agent is
// doing, the input and the status line. It is a client of a session host: everything it shows comes
// from the host's event stream, everything it changes goes through the host.

import type { Component, Editor, TUI } from "@mariozechner/pi-tui";
import { goOnPastBudget } from "../agent/budget/budget.js";
import type { AgentEvent } from "../agent/core/events.js";
import { expandCustomLine } from "../commands/custom.js";
import type { PendingStart, SlashCommand } from "../commands/types.js";
import type { SessionSpec } from "../config/options.js";
import type { PermissionMode } from "../config/permission-mode.js";
import type { SandboxProbe } from "../kernel/sandbox/index.js";
import { Activity } from "./activity.js";
import { AgentPanel } from "./agents/agent-panel.js";
import { AgentsModel } from "./agents/agents-model.js";
import { ChildLiveOutput, isDelta } from "./agents/child-live.js";
import { childActions } from "./agents/child-view.js";
import type { AppControl, Configured } from "./app-api.js";
import { TuiApprovals } from "./dialogs/approval-dialog.js";
import { type DialogHost, showView } from "./dialogs/dialogs.js";
import { loginInSession } from "./dialogs/login.js";
import { keepUntilModel, lacksModel } from "./first-model.js";
import { headerBlock } from "./header.js";
import { helpLines } from "./help.js";
import { HostFigures } from "./host-figures.js";
import { RelmCompletion } from "./input/completion.js";
import { drawNow } from "./input/eager-input.js";
import { InputHistory } from "./input/history.js";
import { ImageAttachments } from "./input/images.js";
import { InputEditor } from "./input/input-editor.js";
import { Pastes } from "./input/pastes.js";
import { isShellInput, runShellInput } from "./input/shell-input.js";
import { installKeys } from "./keys.js";
import { detachSession, quitSession } from "./leave.js";
import { cycleMode } from "./mode-cycle.js";
import { notificationWriter } from "./notify.js";
import { PlanPanel } from "./plan-panel.js";
import { QueueView } from "./queue-view.js";
import { sendMessage } from "./send-message.js";
import { type LinkState, type SessionInfo, SessionLink } from "./session-link.js";
import { shownEvent } from "./shown-event.js";
import { paletteEntries, runSlash, uiCommands } from "./slash.js";
import { StatusBar } from "./status-bar.js";
import type { Theme } from "./theme.js";
import { Transcript } from "./transcript/transcript.js";

export interface AppOptions {
  tui: TUI;
  theme: Theme;
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
  configured: Configured;
  /**
   * The mode a new session starts in (flags, RELM_MODE, config or the default) and why it is full if
   * the default had to be; and whether this machine can sandbox at all (shift+tab skips what it cannot).
   */
  startMode: { mode: PermissionMode; warning?: string; sandbox: () => SandboxProbe };
  branch: string | null;
  version: string;
  /** Options new hosts start with (budgets, --model…). */
  hostSpec: SessionSpec;
  /** Options a saved session's host is brought back with (tui/session-link.ts). */
  resumeSpec: SessionSpec;
  pasteThreshold: number;
  /** Reads the configuration again (after /login). */
  reloadConfig(): AppOptions["configured"] | undefined;
}

export class App implements AppControl {
  readonly tui: TUI;
  readonly theme: Theme;
  readonly dialogs: DialogHost;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly home: string;
  readonly agents = new AgentsModel();
  readonly pending: PendingStart = {};
  configured: AppOptions["configured"];
  link: SessionLink;
  readonly editor: Editor;
  readonly panel: AgentPanel;
  readonly activity: Activity;
  transcript: Transcript;
  /** Messages sent while the agent works, until it reads them. */
  readonly queued: QueueView;
  private readonly plan: PlanPanel;
  /** The root agent's last answer in this session (/copy). */
  lastAnswer: string | undefined;
  private readonly header: Component;
  /**
   * The time every clock on screen shows (cells, sub-agents, the spinner), moved on by the 100 ms tick.
   * One time for all of them means they all change in the tick's frame: eight sub-agents' clocks read
   * from Date.now() each changed at its own moment, which drew about 50 frames a second instead of 10.
   */
  private shownTime = Date.now();
  /** Events journaled before this are history (a replay), not news to act on. */
  private readonly openedAt = Date.now();
  private readonly clock = () => this.shownTime;
  private readonly cellView = { expanded: false, now: this.clock };
  private readonly commands: SlashCommand[];
  readonly history: InputHistory;
  readonly pastes = new Pastes();
  readonly images = new ImageAttachments();
  private readonly childViews = new Set<Transcript>();
  private readonly figures = new HostFigures(this);
  private ticker: NodeJS.Timeout | undefined;
  private resolveExit: ((code: number) => void) | undefined;
  /** What is printed once the UI has given the terminal back (set by finish). */
  farewellMessage: string | undefined;
  readonly exited: Promise<number>;

  constructor(private readonly options: AppOptions) {
    this.tui = options.tui;
    this.theme = options.theme;
    this.env = options.env;
    this.cwd = options.cwd;
    this.home = options.home;
    this.configured = options.configured;
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.commands = uiCommands(this.cwd, this.home);
    this.history = new InputHistory(this.home, this.cwd);
    this.header = headerBlock(this.theme, options.version, this.cwd);
    this.transcript = new Transcript(this.theme, this.cellView);
    this.activity = new Activity(this.theme, this.clock);
    this.queued = new QueueView(this.theme);
    this.plan = new PlanPanel(this.theme);
    this.panel = new AgentPanel(
      this.agents,
      this.theme,
      childActions(this, this.childViews),
      () => Math.max(3, Math.floor(this.tui.terminal.rows / 3)),
      this.clock,
    );
    this.editor = new InputEditor(this.tui, this.theme.editor, { paddingX: 1, autocompleteMaxVisible: 8 });
    this.editor.setAutocompleteProvider(new RelmCompletion(paletteEntries(this.commands), this.cwd));
    for (const entry of this.history.all()) this.editor.addToHistory(entry);
    this.editor.onSubmit = (text) => void this.submit(text);
    const status = new StatusBar(
      () => ({
        info: this.figures.info,
        model: this.pending.model ?? this.configured.model,
        provider: this.configured.via,
        cwd: this.cwd,
        branch: options.branch,
        link: this.link.state,
        sessionId: this.link.id,
        kernel: this.figures.kernel,
        learning: this.figures.learning,
        unsaved: this.figures.unsaved,
        pendingGoal: this.pending.goal,
        pendingGates: this.pending.gates,
        mode: this.mode,
        modeWarning: this.figures.info ? this.figures.info.modeWarning : this.startWarning,
      }),
      this.theme,
    );
    this.dialogs = { tui: this.tui, theme: this.theme, keepBelow: () => status.rows };
    this.link = this.newLink();
    for (const c of [
      this.header,
      this.transcript,
      this.panel,
      this.plan,
      this.queued,
      this.activity,
      this.editor,
      status,
    ]) {
      this.tui.addChild(c);
    }
    this.tui.setFocus(this.editor);
    installKeys(this);
    this.ticker = setInterval(() => this.tick(), 100);
    this.ticker.unref();
  }

  get busy(): boolean {
    return this.activity.busy;
  }

  /** Why a new session starts in full mode without being asked to (no sandbox here), if it does. */
  get startWarning(): string | undefined {
    return this.pending.mode ? undefined : this.options.startMode.warning;
  }

  /** The permission mode shown: the host's, else the one the next session starts in. */
  get mode(): PermissionMode {
    return this.figures.info?.mode ?? this.pending.mode ?? this.options.startMode.mode;
  }

  /** shift+tab: the next permission mode (mode-cycle.ts). */
  cycleMode(): Promise<void> {
    return cycleMode(this, this.commands, this.options.startMode.sandbox());
  }

  get pasteThreshold(): number {
    return this.options.pasteThreshold;
  }

  get info(): SessionInfo | undefined {
    return this.figures.info;
  }

  private newLink(): SessionLink {
    return new SessionLink({
      home: this.home,
      env: this.env,
      cwd: this.cwd,
      hostSpec: this.options.hostSpec,
      resumeSpec: this.options.resumeSpec,
      onEvent: (event) => this.onEvent(event),
      onState: (state, detail) => this.onLinkState(state, detail),
    });
  }

  // --- events -------------------------------------------------------------------------------------

  /** Sub-agents' streamed output since their last journaled step (tui/agents/child-live.ts). */
  private readonly childLive = new ChildLiveOutput();

  lastFullOutput(): string | undefined {
    return this.transcript.lastFullOutput();
  }

  liveEvents(id: string): AgentEvent[] {
    return this.childLive.events(id);
  }

  /** Requests of the agent's kernels waiting for a person: a dialog each (approval-dialog.ts). */
  private readonly approvals = new TuiApprovals(this);

  /** The terminal's notification for each new `notification` event (tui/notify.ts). */
  private readonly notify = notificationWriter((bytes) => this.tui.terminal.write(bytes));

  onEvent(received: AgentEvent): void {
    const event = shownEvent(received);
    this.approvals.onEvent(event);
    this.notify(event);
    this.childLive.apply(event);
    this.figures.apply(event);
    let changed = this.transcript.apply(event);
    changed = this.agents.apply(event) || changed;
    changed = this.activity.apply(event) || changed;
    changed = this.queued.apply(event) || changed;
    changed = this.plan.apply(event) || changed;
    if (!event.agent && event.type === "final" && event.text.trim() !== "") this.lastAnswer = event.text;
    for (const view of this.childViews) changed = view.apply(event) || changed;
    if (event.type === "variable" && !event.agent) this.pastes.noteExisting(event.name);
    // A turn stopped on a budget while this UI runs (not history replayed): the step on, as line mode says.
    if (event.type === "budget_stop" && !event.agent && Date.parse(event.t) >= this.openedAt)
      void this.sayGoOn(event);
    // A sub-agent's streamed output shows only in its own view: with none open, it changes nothing on
    // screen, and eight children printing every 20 ms would otherwise lay out 60 frames a second.
    // The root's other events end or start a block (its text complete, a cell's result): drawn at once,
    // not at the slot the pacing gives a frame (input/eager-input.ts).
    if (!event.agent && !isDelta(event)) drawNow(this.tui);
    else if (changed || !(event.agent && isDelta(event))) this.tui.requestRender();
  }

  /** How to go on past `stop` from here: with other clients attached, /quit would only detach. */
  private async sayGoOn(stop: { budget: string }): Promise<void> {
    const id = this.link.id;
    if (!id) return;
    const from = (await this.link.otherClients()).length > 0 ? "live" : "attached";
    this.note(this.theme.warn(`to go on: ${goOnPastBudget(id, stop, from)}`));
  }

  private onLinkState(state: LinkState, detail?: string): void {
    if (state === "live") {
      this.figures.connected();
      void this.approvals.refresh(); // one that waited while nobody was attached
    }
    if (state === "offline" && detail) {
      this.transcript.abandonRunning();
      this.activity.set("idle");
      this.queued.clear();
      this.note(this.theme.warn(`■ ${detail}; your next message resumes the session`));
    }
    this.tui.requestRender();
  }

  refreshInfo(): void {
    this.figures.refresh();
  }

  private tick(): void {
    this.shownTime = Date.now();
    if (this.activity.busy || this.transcript.hasRunningCells || this.agents.running() > 0)
      this.tui.requestRender();
    this.figures.tick();
  }

  note(text: string): void {
    this.transcript.note(text);
    this.tui.requestRender();
  }

  // --- input --------------------------------------------------------------------------------------

  async submit(raw: string): Promise<void> {
    const text = raw.trim();
    if (text === "") return;
    if (isShellInput(text)) {
      this.remember(text);
      await runShellInput(this, text);
      this.tui.requestRender();
      return;
    }
    const custom = expandCustomLine(this.commands, text);
    if (text.startsWith("/") && !text.startsWith("//") && !custom) {
      this.remember(text);
      await runSlash(this, this.commands, text);
      this.tui.requestRender();
      return;
    }
    if (custom) {
      this.remember(text);
      this.note(this.theme.dim(`/${custom.command.name} → ${custom.command.file}`));
    }
    if (lacksModel(this)) {
      await keepUntilModel(this, raw);
      return;
    }
    const message = custom ? custom.text : text.startsWith("//") ? text.slice(1) : text;
    const { text: body, short, variables } = this.pastes.take(message);
    const images = this.images.inText(body);
    // History keeps the variables' names, not the paste tokens (which mean nothing once sent).
    if (!custom) this.remember(short);
    try {
      await sendMessage(this, body, variables, images);
    } catch (error) {
      this.note(this.theme.error(`✗ ${(error as Error).message}`));
    }
    this.tui.requestRender();
  }

  private remember(text: string): void {
    this.editor.addToHistory(text);
    this.history.add(text);
  }

  async ensureLive(options: { continueWork?: boolean } = {}): Promise<boolean> {
    if (this.link.live) return true;
    if (this.link.state === "offline") {
      this.activity.set("starting");
      try {
        await this.link.revive(options);
      } finally {
        this.activity.set("idle");
      }
      return true;
    }
    return false;
  }

  interrupt(): void {
    if (!this.link.live || !this.busy) return;
    this.activity.set("interrupting");
    void this.link
      .call("interrupt", {})
      .catch((error: Error) => this.note(this.theme.error(`✗ ${error.message}`)));
  }

  setExpanded(expanded: boolean): void {
    this.cellView.expanded = expanded;
    for (const c of this.transcript.children) c.invalidate();
    this.tui.requestRender();
  }

  toggleExpanded(): void {
    this.setExpanded(!this.cellView.expanded);
  }

  focusAgents(): void {
    if (this.agents.size === 0) {
      this.note(this.theme.dim("no sub-agents in this session yet"));
      return;
    }
    this.panel.pinned = true;
    this.panel.focused = true;
    this.tui.setFocus(this.panel);
    this.tui.requestRender();
  }

  unfocusAgents(): void {
    this.panel.focused = false;
    this.panel.pinned = false;
    this.tui.setFocus(this.editor);
    this.tui.requestRender();
  }

  showHelp(): void {
    void showView(this.dialogs, "relm — commands and keys", (width) =>
      helpLines(this.commands, this.theme, width),
    );
  }

  // --- sessions -----------------------------------------------------------------------------------

  /** Leaves the current session (stopped when idle, left running when working) and clears the screen. */
  private async leaveCurrent(clearScreen: boolean): Promise<void> {
    if (this.link.live) {
      if (this.busy) {
        this.link.detach();
        this.note(this.theme.dim(`session ${this.link.id} keeps running in the background`));
      } else await this.link.stop();
    }
    this.transcript = this.replaceTranscript(clearScreen);
    this.agents.clear();
    this.queued.clear();
    this.plan.clear();
    this.lastAnswer = undefined;
    this.pastes.reset();
    this.images.reset();
    this.activity.set("idle");
    this.figures.info = undefined;
    this.figures.unsaved = [];
    this.link = this.newLink();
  }

  private replaceTranscript(clearScreen: boolean): Transcript {
    const fresh = new Transcript(this.theme, this.cellView);
    const index = this.tui.children.indexOf(this.transcript);
    if (clearScreen) this.tui.children.splice(index, 1, fresh);
    else {
      // Keep what was shown, with a rule between the old session and the next.
      this.transcript.note(this.theme.dim("─".repeat(20)), true);
      this.tui.children.splice(index + 1, 0, fresh);
    }
    if (clearScreen) this.tui.requestRender(true);
    return fresh;
  }

  async newSession(clearScreen: boolean): Promise<void> {
    const was = this.link.id;
    await this.leaveCurrent(clearScreen);
    this.note(this.theme.dim(`new session${was ? ` (the previous one, ${was}, is saved: /resume)` : ""}`));
  }

  async openSession(id: string): Promise<void> {
    if (id === this.link.id) return;
    await this.leaveCurrent(true);
    await this.link.open(id);
    this.note(
      this.theme.dim(
        this.link.live ? `attached to ${id}` : `session ${id} (saved): your next message resumes it`,
      ),
    );
  }

  async login(): Promise<void> {
    await loginInSession(this);
  }

  reloadConfigured(): void {
    const fresh = this.options.reloadConfig();
    if (fresh) this.configured = fresh;
    this.tui.requestRender();
  }

  // --- leaving ------------------------------------------------------------------------------------

  /** Ctrl+C twice, ctrl+d, /quit (tui/leave.ts). */
  quit(): Promise<void> {
    return quitSession(this);
  }

  /** Leave the session running in the background. */
  detach(): void {
    detachSession(this);
  }

  finish(message: string | undefined, code: number): void {
    this.farewellMessage = message;
    clearInterval(this.ticker);
    this.figures.stop();
    this.resolveExit?.(code);
  }
}
