// Modal dialogs drawn over the transcript: a list to pick from (with type-to-filter), a line of text to
// type (optionally masked, for keys), a yes/no question. Each resolves to undefined on Esc; Ctrl-C is
// handled by the caller's flow (the login picker exits with 130, the session treats it as Esc).
import { stripVTControlCharacters } from "node:util";
import {
  type Component,
  type Focusable,
  fuzzyFilter,
  Input,
  Key,
  matchesKey,
  type OverlayHandle,
  type SelectItem,
  SelectList,
  type TUI,
  truncateToWidth,
  visibleWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { Theme } from "../theme.js";
import { dialogPlace } from "./dialog-place.js";

export interface DialogHost {
  tui: TUI;
  theme: Theme;
  /** Called with the keystroke when a dialog sees Ctrl-C (default: treated as Esc). */
  onCtrlC?: () => void;
  /** The rows at the end of the UI a dialog stays above when it fits (the status line): dialog-place.ts. */
  keepBelow?: () => number;
}

/**
 * A framed box with a title, a body and a hint line, drawn over a blank band: the rows it spans (and one
 * above and below) show nothing of the transcript behind it, only the box, 90% of the width, centred.
 */
class Frame implements Component, Focusable {
  private _focused = false;
  /** The rows of the last frame drawn (where the dialog goes depends on it: dialog-place.ts). */
  rows = 0;
  /** The most rows the overlay shows (its maxHeight): the blank rows around the box only fit in that. */
  maxRows = () => Number.POSITIVE_INFINITY;

  constructor(
    private readonly theme: Theme,
    private readonly title: string,
    private readonly body: Component & Partial<Focusable>,
    private readonly hint: string,
    private readonly text?: string,
  ) {}

  get focused(): boolean {
    return this._focused;
  }

  set focused(value: boolean) {
    this._focused = value;
    if ("focused" in this.body) this.body.focused = value;
  }

  invalidate(): void {
    this.body.invalidate();
  }

  handleInput(data: string): void {
    this.body.handleInput?.(data);
  }

  render(width: number): string[] {
    const inner = Math.min(width, Math.max(10, Math.floor(width * 0.9)));
    const left = " ".repeat(Math.max(0, Math.floor((width - inner) / 2)));
    // Rows narrower than the overlay are padded with spaces by the TUI: the band is blank edge to edge.
    const framed = this.box(inner).map((line) => `${left}${line}`);
    const lines = framed.length + 2 <= this.maxRows() ? ["", ...framed, ""] : framed;
    this.rows = lines.length;
    return lines;
  }

  private box(width: number): string[] {
    const t = this.theme;
    // Never wider than the box, however narrow the terminal: a row or title that overflowed it lost
    // the box's right border (cut at 13-20 columns).
    const inner = Math.max(1, width - 4);
    const row = (s: string) => {
      const cut = truncateToWidth(s, inner);
      return `${t.border("│")} ${cut}${" ".repeat(Math.max(0, inner - visibleWidth(cut)))} ${t.border("│")}`;
    };
    const titleText = truncateToWidth(` ${this.title} `, Math.max(1, width - 3), "…");
    const lines = [
      t.border(`╭─${t.c.bold(titleText)}${"─".repeat(Math.max(0, width - 3 - visibleWidth(titleText)))}╮`),
    ];
    if (this.text)
      for (const l of this.text.split("\n").flatMap((x) => wrapTextWithAnsi(x, inner))) lines.push(row(l));
    for (const l of this.body.render(inner)) lines.push(row(l));
    lines.push(row(t.dim(this.hint)));
    lines.push(t.border(`╰${"─".repeat(Math.max(0, width - 2))}╯`));
    return lines;
  }
}

/** The rows a dialog may take: its overlay's maxHeight (dialog-place.ts). */
const dialogRows = (host: DialogHost) => Math.floor(host.tui.terminal.rows * 0.8);

/** Shows `frame` as a dialog, where dialog-place.ts puts it. */
function showDialog(host: DialogHost, frame: Frame, nonCapturing = false): OverlayHandle {
  frame.maxRows = () => dialogRows(host);
  const place = dialogPlace(host.tui, () => frame.rows, host.keepBelow);
  return host.tui.showOverlay(frame, nonCapturing ? Object.assign(place, { nonCapturing }) : place);
}

/**
 * A list that filters as the person types: every word of the query must match the label or the
 * description, fuzzily (SelectList's own filter only matches the start of an item's value).
 */
class FilterList implements Component, Focusable {
  focused = false;
  private query = "";
  list: SelectList;

  constructor(
    private readonly items: SelectItem[],
    private readonly theme: Theme,
    private readonly filterable: boolean,
    private readonly maxVisible: number,
    private readonly onPick: (item: SelectItem | undefined) => void,
    /** The width the list will be drawn at (the dialog's inside). */
    private readonly width: () => number,
  ) {
    this.list = this.build(items);
  }

  private build(items: SelectItem[]): SelectList {
    // Labels (titles, names) get the room they need, up to most of the width; descriptions the rest.
    const longest = Math.max(8, ...items.map((i) => visibleWidth(i.label)));
    const half = Math.max(24, Math.floor(this.width() * 0.5));
    const list = new SelectList(items, this.maxVisible, this.theme.select, {
      minPrimaryColumnWidth: Math.min(longest + 2, 24),
      maxPrimaryColumnWidth: Math.min(longest + 2, half),
    });
    list.onSelect = (item) => this.onPick(item);
    list.onCancel = () => this.onPick(undefined);
    return list;
  }

  private refilter(): void {
    const words = this.query.trim().split(/\s+/).filter(Boolean);
    let shown = this.items;
    for (const word of words) {
      shown = fuzzyFilter(shown, word, (i) => `${i.label} ${i.description ?? ""}`);
    }
    this.list = this.build(shown);
    this.count = shown.length;
  }

  private count = -1;

  invalidate(): void {
    this.list.invalidate();
  }

  handleInput(data: string): void {
    if (this.filterable && data.length === 1 && data >= " " && data !== "\x7f") {
      this.query += data;
      this.refilter();
      return;
    }
    if (this.filterable && matchesKey(data, Key.backspace)) {
      this.query = this.query.slice(0, -1);
      this.refilter();
      return;
    }
    // Enter with nothing left to choose keeps the dialog open.
    if (this.count === 0 && matchesKey(data, Key.enter)) return;
    this.list.handleInput(data);
  }

  render(width: number): string[] {
    const lines =
      this.count === 0
        ? [this.theme.dim("  nothing matches")]
        : [...this.list.render(width), ...this.wholeDescription(width)];
    if (!this.filterable) return lines;
    return [`${this.theme.accent("filter ›")} ${this.query}${this.focused ? "▏" : ""}`, ...lines];
  }
  /**
   * The chosen item's description in full, wrapped under the list, when its column cut it: a list row
   * keeps one line per item, so a long description (a subscription's) would otherwise never be read whole.
   */
  private wholeDescription(width: number): string[] {
    const item = this.list.getSelectedItem();
    const description = item?.description?.replace(/\s+/g, " ").trim();
    if (!item || !description) return [];
    const row = this.list.render(width).find((l) => stripVTControlCharacters(l).startsWith("→ "));
    if (row && stripVTControlCharacters(row).replace(/\s+/g, " ").includes(description)) return [];
    return wrapTextWithAnsi(description, Math.max(10, width - 4)).map((l) => `    ${this.theme.dim(l)}`);
  }
}

/** An Input whose characters are shown as dots: for API keys. */
class MaskedInput implements Component, Focusable {
  focused = false;
  readonly input = new Input();

  invalidate(): void {}

  handleInput(data: string): void {
    this.input.handleInput(data);
  }

  render(width: number): string[] {
    const n = [...this.input.getValue()].length;
    const shown = n === 0 ? "" : `${"•".repeat(Math.min(n, width - 20))} (${n} characters)`;
    return [truncateToWidth(`› ${shown}${this.focused ? "▏" : ""}`, width)];
  }
}

function show<T>(
  host: DialogHost,
  build: (done: (value: T | undefined) => void) => {
    frame: Frame;
    keys?: (data: string) => boolean;
    /** Closes the dialog (as Esc would) when something else settled what it asked (a sign-in's callback). */
    signal?: AbortSignal;
  },
): Promise<T | undefined> {
  return new Promise((resolve) => {
    let finished = false;
    const done = (value: T | undefined) => {
      if (finished) return;
      finished = true;
      handle.hide();
      removeListener();
      signal?.removeEventListener("abort", onAbort);
      host.tui.requestRender();
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const { frame, keys, signal } = build(done);
    const handle = showDialog(host, frame);
    const removeListener = host.tui.addInputListener((data) => {
      if (!handle.isFocused()) return undefined;
      if (matchesKey(data, Key.ctrl("c"))) {
        if (host.onCtrlC) host.onCtrlC();
        done(undefined);
        return { consume: true };
      }
      if (keys?.(data)) return { consume: true };
      return undefined;
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) done(undefined);
    host.tui.requestRender();
  });
}

export function pickFrom(
  host: DialogHost,
  options: {
    title: string;
    text?: string;
    items: SelectItem[];
    filterable?: boolean;
    initial?: string;
    hint?: string;
    /** Closes the dialog unanswered (what it asked was settled elsewhere). */
    signal?: AbortSignal;
  },
): Promise<string | undefined> {
  return show<string>(host, (done) => {
    const rows = Math.max(5, Math.min(15, host.tui.terminal.rows - 10));
    const list = new FilterList(
      options.items,
      host.theme,
      options.filterable ?? options.items.length > 8,
      rows,
      (item) => done(item?.value),
      // The dialog is 90% of the screen, less its border and padding.
      () => Math.floor(host.tui.terminal.columns * 0.9) - 4,
    );
    const start = options.items.findIndex((i) => i.value === options.initial);
    if (start >= 0) list.list.setSelectedIndex(start);
    const hint =
      options.hint ?? `↑↓ choose · enter select · esc back${options.filterable ? " · type to filter" : ""}`;
    return {
      frame: new Frame(host.theme, options.title, list, hint, options.text),
      ...(options.signal ? { signal: options.signal } : {}),
    };
  });
}

export function askText(
  host: DialogHost,
  options: {
    title: string;
    text?: string;
    initial?: string;
    mask?: boolean;
    hint?: string;
    signal?: AbortSignal;
  },
): Promise<string | undefined> {
  return show<string>(host, (done) => {
    const masked = options.mask ? new MaskedInput() : undefined;
    const input = masked ? masked.input : new Input();
    if (options.initial) {
      input.setValue(options.initial);
      // Editing starts at the end of the suggestion (Input leaves its cursor at the start).
      input.handleInput("\x05");
    }
    input.onSubmit = (value) => done(value);
    // Esc (pi-tui's cancel key) reaches the input through the frame, masked or not.
    input.onEscape = () => done(undefined);
    const body: Component & Focusable = masked ?? input;
    const hint = options.hint ?? "enter confirm · esc back";
    return {
      frame: new Frame(host.theme, options.title, body, hint, options.text),
      signal: options.signal,
    };
  });
}

export async function confirm(
  host: DialogHost,
  title: string,
  text: string,
  yes = "yes",
  no = "no",
): Promise<boolean> {
  const answer = await pickFrom(host, {
    title,
    text,
    items: [
      { value: "yes", label: yes },
      { value: "no", label: no },
    ],
    filterable: false,
  });
  return answer === "yes";
}

/** A read-only view of text (a diff, a report), scrolled with ↑↓ / PgUp / PgDn. */
export function showText(host: DialogHost, title: string, lines: () => string[]): Promise<void> {
  return showView(host, title, (width) => lines().flatMap((l) => wrapTextWithAnsi(l, width)));
}

/**
 * A read-only, scrollable view of rendered lines (a sub-agent's live transcript). With `follow`, it stays
 * at the end as lines are added until the person scrolls up. `keys` handles extra keys (true = consumed).
 */
export function showView(
  host: DialogHost,
  title: string,
  render: (width: number) => string[],
  options: { follow?: boolean; hint?: string; keys?: (data: string) => boolean } = {},
): Promise<void> {
  return show<void>(host, (done) => {
    let offset = 0;
    let atEnd = options.follow ?? false;
    let lastMax = 0;
    // A page is the rows the view showed last (pgdn then starts at the first line not yet seen).
    let page = 5;
    const view: Component = {
      invalidate() {},
      render(width: number) {
        const all = render(width);
        // The frame (borders, hint, position line) and the blank rows around it (Frame.render) must fit the
        // overlay's 80% of the screen.
        const rows = Math.max(5, dialogRows(host) - 7);
        page = rows;
        lastMax = Math.max(0, all.length - rows);
        if (atEnd) offset = lastMax;
        offset = Math.max(0, Math.min(offset, lastMax));
        const shown = all.slice(offset, offset + rows);
        if (all.length > rows)
          shown.push(host.theme.dim(`lines ${offset + 1}–${offset + shown.length} of ${all.length}`));
        return shown;
      },
    };
    const hint = options.hint ?? "↑↓ pgup pgdn scroll · esc close";
    return {
      frame: new Frame(host.theme, title, view, hint),
      keys: (data) => {
        if (matchesKey(data, Key.escape) || data === "q") done(undefined);
        else if (matchesKey(data, Key.up)) offset -= 1;
        else if (matchesKey(data, Key.down)) offset += 1;
        else if (matchesKey(data, Key.pageUp)) offset -= page;
        else if (matchesKey(data, Key.pageDown)) offset += page;
        else if (options.keys?.(data)) return true;
        else return false;
        atEnd = offset >= lastMax;
        host.tui.requestRender();
        return true;
      },
    };
  });
}

/** A box saying what is being waited for; hide() removes it. It takes no keys (Ctrl-C still reaches the caller). */
export function showBusy(host: DialogHost, title: string, text: string): { hide(): void } {
  const frame = new Frame(host.theme, title, { invalidate() {}, render: () => [] }, "please wait…", text);
  const handle = showDialog(host, frame, true);
  host.tui.requestRender();
  return {
    hide() {
      handle.hide();
      host.tui.requestRender();
    },
  };
}
