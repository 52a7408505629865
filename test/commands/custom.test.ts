// Custom commands: files of .relm/commands/ (and Claude Code's and OpenCode's folders) as /NAME, expanded
// to prompt text only. The pty test (test/tui/input/custom-commands.test.ts) shows them in the UI.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  commandFolders,
  expandCustomLine,
  expandTemplate,
  loadCustomCommands,
  withCustom,
} from "../../src/commands/custom.js";
import { commandsFor } from "../../src/commands/table.js";
import { tempDir } from "../support/cli.js";

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

function project(): { root: string; home: string; user: string } {
  const root = tempDir("relm-cmd-proj-");
  const home = tempDir("relm-cmd-home-");
  const user = tempDir("relm-cmd-user-");
  dirs.push(root, home, user);
  mkdirSync(join(root.path, ".git"));
  return { root: root.path, home: home.path, user: user.path };
}

function write(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe("custom commands", () => {
  it("fills $ARGUMENTS and $1…, and appends arguments a template has no place for", () => {
    expect(expandTemplate("Review $ARGUMENTS carefully", "src/a.ts src/b.ts")).toBe(
      "Review src/a.ts src/b.ts carefully",
    );
    expect(expandTemplate("Fix issue $1 in $2 ($3)", '42 "the parser"')).toBe(
      "Fix issue 42 in the parser ()",
    );
    expect(expandTemplate("Summarise the repo", "briefly")).toBe("Summarise the repo\n\nbriefly");
    expect(expandTemplate("Summarise the repo", "")).toBe("Summarise the repo");
    // An unclosed quote is no error here: the words are split on spaces.
    expect(expandTemplate("$1|$2", "'a b")).toBe("'a|b");
  });

  it("reads the project's .relm, .claude and .opencode folders, then relm's home; the first of a name wins", () => {
    const { root, home, user } = project();
    write(join(root, ".relm", "commands"), "review.md", "Review $ARGUMENTS\nsecond line");
    write(join(root, ".claude", "commands"), "review.md", "the Claude one loses");
    write(
      join(root, ".claude", "commands"),
      "fix.md",
      "---\ndescription: Fix an issue\nargument-hint: ISSUE\n---\nFix issue $1",
    );
    write(join(root, ".opencode", "command"), "test.md", "# Run the tests\nRun npm test");
    write(join(home, "commands"), "mine.md", "\n\nMy own command");
    write(join(user, ".claude", "commands"), "user.md", "From the user's Claude folder");
    const found = loadCustomCommands(commandFolders(join(root, "sub"), home, user));
    expect(found.map((c) => [c.name, c.description, c.args])).toEqual([
      ["fix", "Fix an issue", "ISSUE"],
      ["mine", "My own command", undefined],
      ["review", "Review $ARGUMENTS", undefined],
      ["test", "Run the tests", undefined],
      ["user", "From the user's Claude folder", undefined],
    ]);
    expect(found.find((c) => c.name === "fix")?.template).toBe("Fix issue $1");
  });

  it("reads only regular text files: a symlink, an oversized or empty file, a bad name are skipped; escapes removed", () => {
    const { root, home, user } = project();
    const dir = join(root, ".relm", "commands");
    const secret = write(root, "secret.txt", "a private key");
    write(dir, "ok.md", "\u001b]52;c;ZXZpbA==\u0007Harmless \u001b[31mred\u001b[0m text");
    symlinkSync(secret, join(dir, "leak.md"));
    write(dir, "big.md", "x".repeat(70 * 1024));
    write(dir, "empty.md", "   \n");
    write(dir, "Bad Name.md", "nope");
    write(dir, "notes.txt", "not markdown");
    const found = loadCustomCommands(commandFolders(root, home, user));
    expect(found.map((c) => c.name)).toEqual(["ok"]);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking none is left
    expect(found[0]?.description).not.toMatch(/[\u0000-\u001f]/);
  });

  it("never takes a built-in name, and a typed line expands only for a custom command", () => {
    const { root, home, user } = project();
    write(join(root, ".relm", "commands"), "model.md", "would shadow /model");
    write(join(root, ".relm", "commands"), "hi.md", "Say hi to $1");
    const commands = withCustom(commandsFor("ui"), loadCustomCommands(commandFolders(root, home, user)));
    expect(commands.filter((c) => c.name === "model")).toHaveLength(1);
    expect(expandCustomLine(commands, "/model x")).toBeUndefined();
    expect(expandCustomLine(commands, "/hi Ada")?.text).toBe("Say hi to Ada");
    expect(expandCustomLine(commands, "hi Ada")).toBeUndefined();
  });
});
