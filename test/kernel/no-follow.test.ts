// Writes by the host into folders sandboxed kernels can write (src/kernel/sandbox/no-follow.ts): a
// symbolic link planted at the name is replaced, and what it points to is left alone.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stageUserVariables } from "../../src/agent/core/user-variables.js";
import { writeNoFollow } from "../../src/kernel/sandbox/no-follow.js";
import { DAMAGE_FILE, recordDamage } from "../../src/session/damage.js";
import { JournalFormatError } from "../../src/session/errors.js";
import { tempDir } from "./helpers.js";

/** A file of the user's outside the folder, and a link to it planted at `name` in `dir`. */
async function planted(dir: string, name: string): Promise<string> {
  const outside = realpathSync(await tempDir("relm-no-follow-outside-"));
  const target = path.join(outside, "precious.txt");
  writeFileSync(target, "precious\n");
  symlinkSync(target, path.join(dir, name));
  return target;
}

describe("writing without following a planted link", () => {
  it("replaces the link with the file, 0600, and leaves nothing else behind", async () => {
    const dir = await tempDir("relm-no-follow-");
    const target = await planted(dir, "out.png");
    writeNoFollow(path.join(dir, "out.png"), "new bytes");
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    const st = lstatSync(path.join(dir, "out.png"));
    expect([st.isFile(), st.mode & 0o777]).toEqual([true, 0o600]);
    expect(readFileSync(path.join(dir, "out.png"), "utf8")).toBe("new bytes");
    expect(readdirSync(dir)).toEqual(["out.png"]);
  });

  it("a person's variable for a sub-agent, staged in its folder", async () => {
    const dir = await tempDir("relm-no-follow-");
    mkdirSync(path.join(dir, "inputs"));
    const target = await planted(path.join(dir, "inputs"), "notes.txt");
    const [staged] = stageUserVariables(dir, [{ name: "notes", text: "the user's text" }]);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    expect(readFileSync((staged!.spec.source as { file: string }).file, "utf8")).toBe("the user's text");
  });

  it("the note that a sub-agent's journal is damaged, kept beside it", async () => {
    const dir = await tempDir("relm-no-follow-");
    const target = await planted(dir, DAMAGE_FILE);
    writeFileSync(path.join(dir, "journal.jsonl"), "{}\nnot json\n");
    recordDamage(new JournalFormatError(path.join(dir, "journal.jsonl"), 2, "not JSON", 3));
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    expect(JSON.parse(readFileSync(path.join(dir, DAMAGE_FILE), "utf8"))).toMatchObject({ line: 2 });
  });
});
