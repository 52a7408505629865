// Which palette the UI starts with, and /theme. RELM_THEME wins, then the choice /theme saved
// ($RELM_HOME/theme), then the terminal's background colour (asked with OSC 11), else dark.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppApi } from "./app-api.js";
import { pickFrom } from "./dialogs/dialogs.js";
import { setThemeColors, THEME_NAMES, type ThemeName } from "./theme.js";

const ASK_MS = 300;

function isThemeName(name: string | undefined): name is ThemeName {
  return THEME_NAMES.includes(name as ThemeName);
}

function savedFile(home: string): string {
  return join(home, "theme");
}

/** The palette to start with; the terminal is asked only when neither RELM_THEME nor a saved choice says. */
export async function startTheme(env: NodeJS.ProcessEnv, home: string): Promise<ThemeName> {
  const named = env.RELM_THEME?.trim();
  if (isThemeName(named)) return named;
  try {
    const saved = readFileSync(savedFile(home), "utf8").trim();
    if (isThemeName(saved)) return saved;
  } catch {}
  return (await askBackground()) ?? "dark";
}

/**
 * The terminal's background, light or dark, from its answer to OSC 11; undefined when it does not say.
 * Device attributes (DA1) are asked right after: every terminal answers those, so a terminal that
 * ignores OSC 11 is known at once instead of after the timeout, and no late answer lands in the input.
 */
function askBackground(): Promise<"dark" | "light" | undefined> {
  const input = process.stdin;
  if (!input.isTTY || !process.stdout.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let got = "";
    const done = (answer: "dark" | "light" | undefined) => {
      clearTimeout(timer);
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      resolve(answer);
    };
    const onData = (data: Buffer) => {
      got += data.toString("latin1");
      // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal answers are escape sequences
      if (/\u001b\[\?[\d;]*c/.test(got)) done(backgroundOf(got));
    };
    const timer = setTimeout(() => done(backgroundOf(got)), ASK_MS);
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
    process.stdout.write("\u001b]11;?\u0007\u001b[c");
  });
}

/** Light or dark from an OSC 11 answer (`rgb:RRRR/GGGG/BBBB`) in `text`. */
function backgroundOf(text: string): "dark" | "light" | undefined {
  const m = /\]11;rgba?:([0-9a-f]+)\/([0-9a-f]+)\/([0-9a-f]+)/i.exec(text);
  if (!m) return undefined;
  const [r, g, b] = [m[1], m[2], m[3]].map(
    (h) => Number.parseInt(h as string, 16) / (16 ** (h as string).length - 1),
  );
  const luminance = 0.2126 * (r as number) + 0.7152 * (g as number) + 0.0722 * (b as number);
  return luminance > 0.5 ? "light" : "dark";
}

/** /theme [NAME]: switches the palette now and keeps the choice for the next start. */
export async function themeCommand(api: AppApi, name: string | undefined): Promise<void> {
  let chosen = name?.toLowerCase();
  if (chosen === undefined) {
    chosen = await pickFrom(api.dialogs, {
      title: `Theme (now ${api.theme.name})`,
      items: THEME_NAMES.map((n) => ({ value: n, label: n })),
      filterable: false,
    });
    if (chosen === undefined) return;
  }
  if (!isThemeName(chosen)) {
    api.note(api.theme.warn(`usage: /theme ${THEME_NAMES.join("|")}`));
    return;
  }
  setThemeColors(api.theme, chosen);
  try {
    writeFileSync(savedFile(api.home), `${chosen}\n`);
  } catch (error) {
    api.note(api.theme.warn(`⚠ the theme is not saved for next time: ${(error as Error).message}`));
  }
  api.tui.invalidate();
  api.tui.requestRender(true);
  api.note(api.theme.dim(`theme: ${chosen} (saved; RELM_THEME overrides it)`));
}
