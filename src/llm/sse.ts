// Server-sent events, as OpenAI and Anthropic stream them. Lenient where real servers differ:
// `data:` without a space, CRLF or CR line ends, and a last event without its blank line.

export interface SseEvent {
  event: string;
  data: string;
}

export async function* parseSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let sawField = false;

  const takeLine = (line: string): SseEvent | undefined => {
    if (line === "") {
      if (!sawField) return undefined;
      const out = { event: event || "message", data: data.join("\n") };
      event = "";
      data = [];
      sawField = false;
      return out;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      sawField = true;
    } else if (field === "event") {
      event = value;
      sawField = true;
    }
    return undefined;
  };

  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (ch === 13 && i === buffer.length - 1) break;
      const line = buffer.slice(start, i);
      if (ch === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
      const ev = takeLine(line);
      if (ev) yield ev;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.endsWith("\r")) buffer = buffer.slice(0, -1);
  // A complete last line without the blank line that should follow it still counts.
  if (buffer === "" && sawField) {
    const ev = takeLine("");
    if (ev) yield ev;
  }
}
