// Large pastes become kernel variables instead of prompt text: the RLM idea applied to the person's own
// input. The editor holds a short token; on send the token turns into a reference to the variable, and
// the text travels beside the message (never inside it).

export const DEFAULT_PASTE_THRESHOLD = 2000;

interface PastedVariable {
  name: string;
  text: string;
}

/** Counted as the kernel side counts them: a final newline does not start another line. */
function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

function describe(text: string): string {
  const lines = lineCount(text);
  return `${text.length.toLocaleString("en-US")} chars, ${lines.toLocaleString("en-US")} line${lines === 1 ? "" : "s"}`;
}

export class Pastes {
  private readonly held = new Map<string, PastedVariable>();
  private counter = 0;

  /** Names already taken in the session (`paste_3` seen in the journal): the next one is higher. */
  noteExisting(name: string): void {
    const m = /^paste_(\d+)$/.exec(name);
    if (m) this.counter = Math.max(this.counter, Number(m[1]));
  }

  reset(): void {
    this.held.clear();
    this.counter = 0;
  }

  /** Keeps the text and returns the token to put in the editor. */
  hold(text: string): string {
    this.counter += 1;
    const name = `paste_${this.counter}`;
    // Not like the editor's own `[paste #1 +12 lines]` (text that goes into the prompt): this one says
    // it becomes a kernel variable.
    const token = `[kernel variable ${name}: ${describe(text)}]`;
    this.held.set(token, { name, text });
    return token;
  }

  /**
   * The message to send and the variables it refers to. Each token left in the input becomes the
   * variable's name in backticks; what the variable holds is said once, after the message, so its first
   * line (the session's title) stays what the person wrote. `short` is the message with names only, for
   * the input history. Tokens the person deleted are dropped with their text.
   */
  take(message: string): { text: string; short: string; variables: PastedVariable[] } {
    const variables: PastedVariable[] = [];
    const notes: string[] = [];
    let short = message;
    for (const [token, v] of this.held) {
      if (!short.includes(token)) continue;
      short = short.split(token).join(`\`${v.name}\``);
      const head = v.text.slice(0, 120).replace(/\s+/g, " ");
      notes.push(
        `[\`${v.name}\` is a str variable in your kernel holding text the user pasted: ${describe(v.text)}; it starts ${JSON.stringify(head)}${v.text.length > 120 ? "…" : ""}]`,
      );
      variables.push(v);
    }
    this.held.clear();
    const text = notes.length > 0 ? `${short}\n\n${notes.join("\n")}` : short;
    return { text, short, variables };
  }
}
