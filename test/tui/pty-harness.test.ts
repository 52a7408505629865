// The UI tests' pty harness (test/support/pty.ts), proved on a tiny program instead of relm: it reads raw
// keys, reports what arrived, prints colours and reacts to a resize, so each feature is checked on its own.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyBytes, type Pty, usePtys } from "../support/pty.js";
import { until } from "../support/wait.js";

// Commands (single keys): q exits with 7; c hides the cursor and moves it; a turns on application cursor
// keys; s starts a synchronized update that e ends. A bracketed paste is reported by length and hash;
// anything else as `key "<JSON of what one read returned>"`.
const PROGRAM = String.raw`
const out = (s) => process.stdout.write(s);
process.stdin.setRawMode(true);
process.stdin.setEncoding("utf8");
out("\x1b[?2004h");
out("ready " + process.stdout.columns + "x" + process.stdout.rows + "\r\n");
out("\x1b[31mred\x1b[0m \x1b[1;38;5;208mbold-orange\x1b[0m \x1b[38;2;10;20;30;48;2;200;100;50mrgb\x1b[0m \x1b[3;4;7mfancy\x1b[0m\r\n");
process.stdout.on("resize", () => out("size " + process.stdout.columns + "x" + process.stdout.rows + "\r\n"));
let paste = null;
process.stdin.on("data", (d) => {
  if (paste !== null || d.startsWith("\x1b[200~")) {
    paste = (paste ?? "") + d;
    if (!paste.endsWith("\x1b[201~")) return;
    const body = paste.slice(6, -6);
    paste = null;
    out("paste " + body.length + " " + require("node:crypto").createHash("sha256").update(body).digest("hex").slice(0, 16) + "\r\n");
  } else if (d === "q") process.exit(7);
  else if (d === "c") out("\x1b[?25l\x1b[5;10Hmark");
  else if (d === "a") out("\x1b[?1happcursor\r\n");
  else if (d === "s") out("\x1b[?2026hframe-start\r\n");
  else if (d === "e") out("frame-end\x1b[?2026l\r\n");
  else out("key " + JSON.stringify(d).replace(/\x7f/g, "\\u007f") + "\r\n");
});
`;

const startPty = usePtys();

async function startProgram(cols = 100, rows = 30): Promise<Pty> {
  const p = startPty({ command: [process.execPath, "-e", PROGRAM], cols, rows });
  await p.waitFor(`ready ${cols}x${rows}`);
  // The coloured line is a second write: wait for it too, not only for the first.
  await p.waitFor("fancy");
  return p;
}

// What the program prints for one read (DEL escaped too: a terminal draws nothing for it).
const keyLine = (bytes: string) => `key ${JSON.stringify(bytes).replace(/\x7f/g, "\\u007f")}`;

describe("pty harness", () => {
  it("shows the program's screen, its colours and attributes cell by cell", async () => {
    const p = await startProgram();
    expect(p.screen()).toHaveLength(30);
    expect(p.screen()[1]).toBe("red bold-orange rgb fancy");
    expect(p.styleOf("red").fg).toEqual({ mode: "palette", value: 1, hex: "#cc0000" });
    expect(p.styleOf("red").bold).toBe(false);
    const orange = p.styleOf("bold-orange");
    expect(orange).toMatchObject({ bold: true, fg: { mode: "palette", value: 208, hex: "#ff8700" } });
    const rgb = p.styleOf("rgb");
    expect(rgb.fg).toEqual({ mode: "rgb", value: 0x0a141e, hex: "#0a141e" });
    expect(rgb.bg.hex).toBe("#c86432");
    expect(p.styleOf("fancy")).toMatchObject({ italic: true, underline: true, inverse: true, bold: false });
    expect(p.cellStyle(1, 3)).toMatchObject({ char: " ", fg: { mode: "default" }, bg: { mode: "default" } });
    const svg = p.svg();
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('fill="#c86432"'); // the rgb cell's background
    expect(svg).toContain(">bold-orange</text>");
  });

  it("sends named keys as a terminal does, following the program's cursor-key mode", async () => {
    const p = await startProgram();
    for (const key of ["up", "shift-enter", "alt-enter", "ctrl-c", "ctrl-r", "tab", "backspace"] as const) {
      await p.press(key);
      await p.waitFor(keyLine(keyBytes(key)));
    }
    expect(keyBytes("shift-enter")).toBe("\x1b[13;2u");
    expect(keyBytes("ctrl-c")).toBe("\x03");
    await p.type("a");
    await p.waitFor("appcursor");
    await p.press("down");
    await p.waitFor(keyLine("\x1bOB"));
    expect(() => keyBytes("ctrl-space" as never)).toThrow(/unknown key/);
  });

  it("counts columns in cells, so text after wide characters is found where it is drawn", async () => {
    const p = await startProgram();
    await p.type("😀😀x");
    await p.waitFor('key "😀😀x"');
    const at = p.find('x"');
    expect(at).toBeDefined();
    // `key "` is five cells and each emoji two.
    expect(at?.col).toBe(9);
    expect(p.cellStyle(at?.row ?? 0, 5)).toMatchObject({ char: "😀", width: 2 });
    // Sequences a modern terminal draws as one emoji: ZWJ, skin tone, VS16; CJK is two cells too.
    await p.type("👩‍💻👍🏽❤️漢x");
    await p.waitFor('key "👩‍💻👍🏽❤️漢x"');
    const han = p.find(/漢x"/);
    expect(han?.col).toBe(5 + 2 + 2 + 2);
    expect(p.cellStyle(han?.row ?? 0, 5 + 2 + 2 + 2 + 2).char).toBe("x");
  });

  it("delivers a 50 KB bracketed paste intact", async () => {
    const p = await startProgram();
    const line = "päste ✓ 😀 line with some text to make it longer\n";
    const text = line.repeat(Math.ceil(50_000 / line.length));
    expect(text.length).toBeGreaterThan(50_000);
    await p.paste(text);
    const hash = createHash("sha256").update(text).digest("hex").slice(0, 16);
    await p.waitFor(`paste ${text.length} ${hash}`);
  });

  it("resizes the emulator and the pty, and the program hears about it", async () => {
    const p = await startProgram();
    p.resize(60, 20);
    await p.waitFor("size 60x20");
    expect(p.screen()).toHaveLength(20);
    expect(p.term.cols).toBe(60);
  });

  it("reports the cursor's position and whether the program hides it", async () => {
    const p = await startProgram();
    expect(p.cursor().visible).toBe(true);
    await p.type("c");
    await p.waitFor(/^ {9}mark/m);
    expect(p.cursor()).toEqual({ row: 4, col: 13, visible: false });
  });

  it("does not match the screen in the middle of a synchronized update", async () => {
    const p = await startProgram();
    await p.type("s");
    await until(() => (p.output().includes("frame-start") ? true : undefined));
    // The text has arrived (above) and the update stays open until "e": no match however long it looks.
    await expect(p.waitFor("frame-start", { timeoutMs: 300 })).rejects.toThrow(/timed out/);
    await p.type("e");
    await p.waitFor("frame-end");
    expect(p.screenText()).toContain("frame-start");
  });

  it("fails with the screen in the message on a timeout, and fast when the program has exited", async () => {
    const p = await startProgram();
    // The timeout itself is under test: 200 ms of looking for text the program never prints.
    const timeout = await p.waitFor("never shown", { timeoutMs: 200 }).catch((e: Error) => e);
    expect(timeout).toBeInstanceOf(Error);
    expect((timeout as Error).message).toMatch(
      /timed out after 200 ms\n--- screen \(100x30,.*\n {2}0 │ready 100x30\n/,
    );
    await p.type("q");
    expect(await p.waitForExit()).toMatchObject({ exitCode: 7 });
    // "ended", not "timed out": it gave up as soon as it knew the screen could not change any more.
    await expect(p.waitFor("never shown")).rejects.toThrow(
      /the program ended \(exit code 7\)[\s\S]*ready 100x30/,
    );
    await expect(p.type("x")).rejects.toThrow(/has exited/);
  });

  it("close() ends a program that is still running", async () => {
    const p = await startProgram();
    await p.close();
    expect(p.exit).toBeDefined();
  });
});
