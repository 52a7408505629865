// What the input shows: `@` completion lists each project path once (a merge conflict lists a path once
// per stage in git's index), and the two markers a paste can leave are worded apart, explained in /help,
// and send what they say (prompt text vs a kernel variable).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTui } from "../../support/tui.js";

const { startRig, open } = useTui();

/** git with an identity of its own, whatever the machine's configuration. */
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    stdio: "pipe",
  });

describe("terminal UI input markers", () => {
  it("@ completion shows each path once, also a path left in conflict by a merge", async () => {
    const rig = await startRig("openai", { script: [{ text: "ok" }] });
    const cwd = rig.cwd;
    mkdirSync(join(cwd, "src"));
    git(cwd, "init", "-q", "-b", "main");
    writeFileSync(join(cwd, "src", "app.ts"), "a\n");
    writeFileSync(join(cwd, "src", "app-util.ts"), "util\n");
    git(cwd, "add", ".");
    git(cwd, "commit", "-qm", "a");
    git(cwd, "checkout", "-qb", "other");
    writeFileSync(join(cwd, "src", "app.ts"), "b\n");
    git(cwd, "commit", "-qam", "b");
    git(cwd, "checkout", "-q", "main");
    writeFileSync(join(cwd, "src", "app.ts"), "c\n");
    git(cwd, "commit", "-qam", "c");
    try {
      git(cwd, "merge", "-q", "other");
    } catch {
      // The conflict is the point: src/app.ts now has three stages in the index.
    }
    writeFileSync(join(cwd, "src", "app-notes.md"), "untracked\n");
    expect(
      git(cwd, "ls-files", "--cached", "-z")
        .toString()
        .split("\0")
        .filter((f) => f === "src/app.ts"),
    ).toHaveLength(3);

    const ui = open(rig, [], { cols: 100, rows: 30 });
    await ui.waitFor("new session");
    await ui.type("look at @app");
    const screen = await ui.waitFor((s) =>
      ["src/app.ts", "src/app-util.ts", "src/app-notes.md"].every((f) => s.includes(f)),
    );
    const rows = screen.split("\n");
    for (const path of ["src/app.ts", "src/app-util.ts", "src/app-notes.md"])
      expect(
        rows.filter((row) => row.trim().replace(/^→ /, "") === path),
        screen,
      ).toHaveLength(1);
  });

  it("a paste kept as prompt text and one made a kernel variable are marked apart, explained, and send what they say", async () => {
    const rig = await startRig("openai", { script: [{ text: "read both" }] });
    const ui = open(rig, [], { cols: 120, rows: 40 });
    await ui.waitFor("new session");
    const shortPaste = Array.from({ length: 12 }, (_, i) => `step ${i}: keep this in the prompt`).join("\n");
    const longPaste = Array.from(
      { length: 200 },
      (_, i) => `row ${i} of the big table, only its name goes`,
    ).join("\n");
    expect(longPaste.length).toBeGreaterThan(2000);
    // /help says what each marker means.
    await ui.type("/help");
    await ui.press("enter");
    await ui.waitFor("relm — commands and keys");
    // The keys' table is at the end of the help.
    for (let i = 0; i < 4 && !ui.screenText().includes("[kernel variable paste_1: …]"); i++) {
      const before = ui.screenText();
      await ui.press("pagedown");
      await ui.waitFor((s) => s !== before || s.includes("[kernel variable paste_1: …]"));
    }
    const help = await ui.waitFor("[kernel variable paste_1: …]");
    expect(help).toMatch(/\[paste #1 \+12 lines\] +a long paste kept as prompt text/);
    expect(help).toMatch(/\[kernel variable paste_1: …\] +a paste over 2,000 characters: put in the kernel/);
    await ui.press("escape");
    await ui.waitFor((s) => !s.includes("relm — commands and keys"));
    // Both in one input, worded apart.
    await ui.type("compare ");
    await ui.paste(shortPaste);
    await ui.waitFor("[paste #1 +12 lines]");
    await ui.type(" with ");
    await ui.paste(longPaste);
    const input = await ui.waitFor(/\[kernel variable paste_1: [\d,]+ chars, 200 lines\]/);
    expect(input).toContain("compare [paste #1 +12 lines] with [kernel variable paste_1:");
    // Sent: the short paste is in the message itself, the long one only by its name.
    await ui.press("enter");
    await ui.waitFor("read both");
    const body = rig.bodies()[0] ?? "";
    expect(body).toContain("step 11: keep this in the prompt");
    expect(body).not.toContain("row 150 of the big table");
    expect(body).toMatch(/`paste_1` is a str variable in your kernel/);
  });
});
