// Large pastes become kernel variables instead of prompt text: the RLM idea applied to the person's own
// input. The editor holds a short token; on send the token turns into a reference to the variable, and
// the text travels beside the message (never inside it).

export const DEFAULT_PASTE_THRESHOLD = 2000;

export interface PastedVariable {
  name: string;
  text: string;
}

function describe(text: string): string {
  const lines = text.length === 0 ? 0 : text.split("\n").length;
  return `${text.length.toLocaleString("en-US")} chars, ${lines.toLocaleString("en-US")} line${lines === 1 ? "" : "s"}`;
}

export class Pastes {
  private readonly held = new Map<string, { name: string; text: string }>();
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
    const token = `[${name}: ${describe(text)}]`;
    this.held.set(token, { name, text });
    return token;
  }

  /**
   * The message to send and the variables it refers to. Tokens the person deleted from the editor are
   * dropped; the ones left become a sentence the model can act on.
   */
  take(message: string): { text: string; variables: PastedVariable[] } {
    const variables: PastedVariable[] = [];
    let text = message;
    for (const [token, v] of this.held) {
      if (!text.includes(token)) continue;
      const head = v.text.slice(0, 120).replace(/\s+/g, " ");
      const ref = `\`${v.name}\` (pasted text, now a str variable in your kernel: ${describe(v.text)}; starts ${JSON.stringify(head)}${v.text.length > 120 ? "…" : ""})`;
      text = text.split(token).join(ref);
      variables.push({ name: v.name, text: v.text });
    }
    this.held.clear();
    return { text, variables };
  }
}
