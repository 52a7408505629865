// Server-sent events, as OpenAI and Anthropic stream them. Lenient where real servers differ:
// `data:` without a space, CRLF or CR line ends, and a last event without its blank line.
//
// Linear in the size of the stream and bounded in memory: each byte is looked at once (a line's bytes
// are kept as the chunks they came in and joined once, when the line ends), and no line or event may
// grow past `maxEventBytes` — a server that sends one 50 MB `data:` line is broken, not a model.

export interface SseEvent {
  event: string;
  data: string;
}

/** The default cap on one event's lines (config.json `maxStreamEventMB`, docs/configuration.md). */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** A line or an event of the stream grew past the cap: the stream is malformed, not worth reading on. */
export class SseLimitError extends Error {
  constructor(
    readonly limitBytes: number,
    /** What was too large, as the error names it: "one event", "the answer". */
    readonly what = "one event",
  ) {
    super(`${what} was larger than ${formatBytes(limitBytes)}`);
    this.name = "SseLimitError";
  }
}

export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB` : `${bytes} bytes`;
}

const LF = 10;
const CR = 13;

export async function* parseSse(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxEventBytes?: number } = {},
): AsyncGenerator<SseEvent> {
  const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const decoder = new TextDecoder();
  /** The bytes of the line not yet ended, as they arrived. */
  let parts: Uint8Array[] = [];
  let partBytes = 0;
  /** The last chunk ended in CR: an LF first in the next one is the second half of CRLF. */
  let afterCR = false;
  let event = "";
  let data: string[] = [];
  /** Bytes of the fields of the event being read, to cap an event made of many lines too. */
  let eventBytes = 0;
  let sawField = false;

  const takeLine = (line: string, bytes: number): SseEvent | undefined => {
    if (line === "") {
      if (!sawField) return undefined;
      const out = { event: event || "message", data: data.join("\n") };
      event = "";
      data = [];
      eventBytes = 0;
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
      eventBytes += bytes;
      sawField = true;
    } else if (field === "event") {
      event = value;
      eventBytes += bytes;
      sawField = true;
    }
    return undefined;
  };

  const check = (lineBytes: number) => {
    if (eventBytes + lineBytes > max) throw new SseLimitError(max);
  };

  for await (const chunk of chunks) {
    let start = 0;
    if (afterCR && chunk.length > 0) {
      if (chunk[0] === LF) start = 1;
      afterCR = false;
    }
    for (let i = start; i < chunk.length; i++) {
      const byte = chunk[i];
      // UTF-8 never uses these bytes inside a multi-byte character, so bytes can be split here.
      if (byte !== LF && byte !== CR) continue;
      const lineBytes = partBytes + (i - start);
      check(lineBytes);
      const tail = chunk.subarray(start, i);
      const line = decoder.decode(parts.length === 0 ? tail : Buffer.concat([...parts, tail]));
      parts = [];
      partBytes = 0;
      if (byte === CR) {
        if (i + 1 < chunk.length) {
          if (chunk[i + 1] === LF) i++;
        } else afterCR = true;
      }
      start = i + 1;
      const ev = takeLine(line, lineBytes);
      if (ev) yield ev;
    }
    if (start < chunk.length) {
      partBytes += chunk.length - start;
      check(partBytes);
      // A copy: the reader may reuse the chunk's memory.
      parts.push(chunk.slice(start));
    }
  }
  // A complete last line without the blank line that should follow it still counts; a cut-off line does not.
  if (partBytes === 0 && sawField) {
    const ev = takeLine("", 0);
    if (ev) yield ev;
  }
}
