// The bytes a terminal (xterm) sends for named keys, for the pty harness's press().

// biome-ignore format: one table
type Letter =
  | "a" | "b" | "c" | "d" | "e" | "f" | "g" | "h" | "i" | "j" | "k" | "l" | "m"
  | "n" | "o" | "p" | "q" | "r" | "s" | "t" | "u" | "v" | "w" | "x" | "y" | "z";

// What xterm sends for each key. Cursor keys depend on DECCKM (application cursor keys), so they are
// [normal, application] pairs and resolved when the key is written.
const NAMED_KEYS = {
  enter: "\r",
  escape: "\x1b",
  tab: "\t",
  "shift-tab": "\x1b[Z",
  backspace: "\x7f",
  delete: "\x1b[3~",
  space: " ",
  up: ["\x1b[A", "\x1bOA"],
  down: ["\x1b[B", "\x1bOB"],
  right: ["\x1b[C", "\x1bOC"],
  left: ["\x1b[D", "\x1bOD"],
  home: ["\x1b[H", "\x1bOH"],
  end: ["\x1b[F", "\x1bOF"],
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~",
  "ctrl-left": "\x1b[1;5D",
  "ctrl-right": "\x1b[1;5C",
  "alt-left": "\x1b[1;3D",
  "alt-right": "\x1b[1;3C",
  "shift-up": "\x1b[1;2A",
  "shift-down": "\x1b[1;2B",
  // Modified Enter as CSI u (kitty protocol / xterm modifyOtherKeys), which pi-tui understands.
  "shift-enter": "\x1b[13;2u",
  "ctrl-enter": "\x1b[13;5u",
  "alt-enter": "\x1b\r",
  "alt-backspace": "\x1b\x7f",
} satisfies Record<string, string | [string, string]>;

/** Names press() accepts: the table above plus ctrl-a … ctrl-z and alt-a … alt-z. */
export type KeyName = keyof typeof NAMED_KEYS | `ctrl-${Letter}` | `alt-${Letter}`;

/** The bytes a terminal sends for `key`; `appCursor` is the program's DECCKM mode. */
export function keyBytes(key: KeyName, appCursor = false): string {
  const modified = /^(ctrl|alt)-([a-z])$/.exec(key);
  if (modified) {
    const letter = modified[2] as string;
    return modified[1] === "ctrl" ? String.fromCharCode(letter.charCodeAt(0) - 96) : `\x1b${letter}`;
  }
  const bytes = (NAMED_KEYS as Record<string, string | [string, string]>)[key];
  if (bytes === undefined) throw new Error(`press(): unknown key ${JSON.stringify(key)}`);
  return typeof bytes === "string" ? bytes : bytes[appCursor ? 1 : 0];
}
