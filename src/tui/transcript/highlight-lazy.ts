// The syntax highlighter (highlight.js grammars, about a quarter of the UI's code) is loaded after the
// first paint rather than before it: the opening screen has no code on it, and `relm` should be on
// screen as soon as Node allows. Until it is loaded, code is shown plain; the UI waits for it before it
// shows a session's events (ensureHighlighter), so a transcript is never drawn half highlighted.

type Highlighter = typeof import("./highlight.js");

let loaded: Highlighter | undefined;
let loading: Promise<void> | undefined;

/** Starts loading the highlighter (once) and resolves when it is ready; a failure leaves code plain. */
export function ensureHighlighter(): Promise<void> {
  loading ??= import("./highlight.js").then(
    (module) => {
      loaded = module;
    },
    () => {},
  );
  return loading;
}

/** The code as highlighted lines, or plain lines while the highlighter is not loaded. */
export function highlightLines(code: string, lang: string | undefined): string[] {
  return loaded ? loaded.highlightLines(code, lang) : code.split("\n");
}

/** A cell's code highlighted (Python with shell lines), or plain lines while it is not loaded. */
export function highlightCell(code: string): string[] {
  return loaded ? loaded.highlightCell(code) : code.split("\n");
}
