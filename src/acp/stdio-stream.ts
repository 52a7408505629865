// The ACP connection's stdio as a stream of JSON-RPC messages. relm's own rather than the SDK's
// ndJsonStream, which ends the whole connection (every thread of the editor) on a message over 32 MiB:
// here a message too large gets a JSON-RPC error (with its id when it can be found) and the agent reads
// on, so one huge paste fails alone. Messages are split in linear time with a bounded buffer
// (kernel/lines.ts); one up to 64 MiB is read (a 30 MB prompt becomes a kernel variable, session.ts).
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { isRecord } from "../config/records.js";
import { idOfEdges } from "../host/rpc.js";
import { BoundedLineSplitter, MAX_LINE_BYTES, writeJsonLine } from "../kernel/lines.js";

export function stdioStream(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Stream {
  const refuse = (id: string | number | null, code: number, message: string) =>
    void writeJsonLine(output, { jsonrpc: "2.0", id, error: { code, message } });

  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      const lines = new BoundedLineSplitter(
        (line) => {
          const text = line.trim();
          if (text === "") return;
          let message: unknown;
          try {
            message = JSON.parse(text);
          } catch {
            return refuse(null, -32700, "parse error: the message is not valid JSON");
          }
          if (!isRecord(message)) {
            return refuse(null, -32600, "invalid request: one JSON object per line");
          }
          controller.enqueue(message as AnyMessage);
        },
        () => {},
        MAX_LINE_BYTES,
        ({ head, tail }) =>
          refuse(
            idOfEdges(head, tail),
            -32600,
            `request too large: one message may be at most ${Math.round(MAX_LINE_BYTES / 2 ** 20)} MiB; ` +
              "attach a large file as a file rather than pasting it",
          ),
      );
      input.on("data", (chunk: Buffer | string) =>
        lines.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)),
      );
      input.once("end", () => {
        lines.close();
        controller.close();
      });
      input.once("error", (error) => controller.error(error));
    },
  });
  const writable = new WritableStream<AnyMessage>({ write: (message) => writeJsonLine(output, message) });
  return { readable, writable };
}
