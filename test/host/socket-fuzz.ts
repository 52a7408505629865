// Test helpers for the session-socket hardening tests: a raw connection and a seeded frame fuzzer.
import { connect, type Socket } from "node:net";
import { until } from "../support/wait.js";
export type Reply = Record<string, unknown> & { id?: unknown; error?: { code: number; message: string } };

/** A raw connection: writes whatever it is given, reads the peer's lines as JSON (our own peer is trusted). */
export class Raw {
  readonly lines: Reply[] = [];
  ended = false;
  private rest = "";
  private read = 0;

  private constructor(readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      const parts = (this.rest + chunk).split("\n");
      this.rest = parts.pop() ?? "";
      for (const part of parts) if (part) this.lines.push(JSON.parse(part) as Reply);
    });
    socket.on("close", () => {
      this.ended = true;
    });
    socket.on("error", () => {});
  }

  static open(path: string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once("connect", () => resolve(new Raw(socket)));
      socket.once("error", reject);
    });
  }

  /** Resolves once the bytes are handed to the kernel (or the connection is gone). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) resolve();
      else this.socket.write(data, () => resolve());
    });
  }

  async request(line: string): Promise<Reply> {
    await this.write(`${line}\n`);
    return this.next();
  }

  next(): Promise<Reply> {
    const i = this.read++;
    return until(() => this.lines[i], 10_000);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Deterministic PRNG (mulberry32): a failing fuzz run is reproduced with RELM_FUZZ_SEED. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzFrame {
  bytes: Buffer;
  /** Close the connection after writing (a partial line then hang up). */
  hangUp?: boolean;
}

/**
 * Random frames a hostile or broken client could send: scalars, random JSON, deep nesting, strings of
 * megabytes, binary, partial lines then a hang-up, and requests with wrong params. Never a well-formed
 * `send`, `message` or `stop` request, which would really act on the session; their notification
 * forms are sent, and must be ignored.
 */
export function fuzzer(random: () => number): () => FuzzFrame {
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: T[]): T => items[int(items.length)] as T;
  const ids = ["1", "42", '"abc"', '""', "null", "{}", "[]", "true", "1e400", "-0", "3.5"];
  const keys = [
    "id",
    "method",
    "params",
    "jsonrpc",
    "result",
    "error",
    "__proto__",
    "constructor",
    "after",
    "text",
  ];
  const scalar = () =>
    pick([
      "null",
      "42",
      "-1.5e308",
      '"s"',
      "true",
      "false",
      "1e400",
      '"\\ud800"',
      String(random()),
      `"${"z".repeat(int(50))}"`,
    ]);
  const value = (depth: number): string => {
    if (depth <= 0 || random() < 0.4) return scalar();
    const n = int(4);
    if (random() < 0.5) return `[${Array.from({ length: n }, () => value(depth - 1)).join(",")}]`;
    return `{${Array.from({ length: n }, () => `"${pick(keys)}":${value(depth - 1)}`).join(",")}}`;
  };
  const deep = () => {
    const d = 1000 + int(100_000);
    const [open, close] = random() < 0.5 ? ["[", "]"] : ['{"a":', "}"];
    const body = open.repeat(d) + (random() < 0.7 ? `1${close.repeat(d)}` : "");
    return random() < 0.5 ? body : `{"jsonrpc":"2.0","id":1,"method":"status","params":{"x":${body}}}`;
  };
  const huge = () => {
    const s = "h".repeat(int(4 << 20));
    return pick([
      `"${s}"`,
      `{"jsonrpc":"2.0","id":2,"method":"status","params":{"junk":"${s}"}}`,
      `{"jsonrpc":"2.0","id":3,"method":"send","params":{"txt":"${s}"}}`,
      `{"jsonrpc":"2.0","id":4,"method":"${s}"}`,
    ]);
  };
  const binary = () => {
    const bytes = Buffer.alloc(int(64 << 10));
    for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
    return bytes;
  };
  // Requests a real client could send, with the wrong params; and notifications that must not act.
  const wrongParams = () => {
    const id = pick(ids);
    return pick([
      `{"jsonrpc":"2.0","id":${id},"method":"send","params":${pick(["42", '"text"', "[]", "{}", '{"text":42}', '{"text":null}', '{"text":{"a":1}}', "null", "true"])}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"message","params":${pick(['{"from":1,"text":"x"}', '{"from":"x"}', '{"text":"x"}', '["a","b"]', "7"])}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"attach","params":${pick(['{"after":"x"}', '{"after":-1}', '{"after":1.5}', '{"after":{}}', '{"after":null}', "{}"])}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"stop","params":${pick(["42", '"now"', "true"])}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"schedule.reload","params":"x"}`,
      `{"jsonrpc":"2.0","id":${id},"method":"status","params":${pick(["[1,2]", "{}", '{"x":[[[]]]}'])}}`,
      `{"jsonrpc":"2.0","id":${id},"method":"nope"}`,
      '{"jsonrpc":"2.0","method":"stop"}',
      '{"jsonrpc":"2.0","method":"send","params":{"text":"INJECTED"}}',
      '{"jsonrpc":"2.0","method":"message","params":{"from":"mallory","text":"INJECTED"}}',
      '{"jsonrpc":"2.0","id":1,"result":5}',
      '{"id":1,"error":{"code":"x"}}',
    ]);
  };
  return (): FuzzFrame => {
    const r = random();
    const line = (text: string) => ({ bytes: Buffer.from(`${text}\n`) });
    if (r < 0.1) return line(scalar());
    if (r < 0.3) return line(value(5));
    if (r < 0.38) return line(deep());
    if (r < 0.42) return line(huge());
    if (r < 0.55) return { bytes: binary() };
    if (r < 0.6) {
      const whole = wrongParams();
      return { bytes: Buffer.from(whole.slice(0, int(whole.length))), hangUp: true };
    }
    if (r < 0.64) return { bytes: Buffer.from(pick(["\n", "\n\n  \r\n\t\n", " ", "\r\n"])) };
    return line(wrongParams());
  };
}
