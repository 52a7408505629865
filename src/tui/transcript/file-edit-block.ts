// A file the kernel's toolkit changed (a `file_edit` event): the path, +added −removed, and the unified
// diff coloured, folded to a few lines like a long cell output (ctrl+o shows it all). Shown inside the
// cell that made the change, or on its own when no cell of the view is running (a replay from the middle).
import type { JournalEventOf } from "../../session/types.js";
import type { Theme } from "../theme.js";
import { CachedBlock } from "./blocks.js";
import { type CellView, clip, sanitize } from "./cell-block.js";

/** Diff lines shown while folded; a diff of one more line than this is shown whole. */
const DIFF_FOLDED = 8;
const DIFF_EXPANDED_MAX = 2000;

type FileEdit = Pick<JournalEventOf<"file_edit">, "path" | "action" | "from" | "added" | "removed" | "diff">;

export class FileEditBlock extends CachedBlock {
  private readonly diff: string[];

  constructor(
    private readonly edit: FileEdit,
    private readonly theme: Theme,
    private readonly view: CellView,
    /** On its own in the transcript (not inside a cell): a blank line above, as other blocks have. */
    private readonly standalone = false,
  ) {
    super();
    // The `--- a/` / `+++ b/` header names the path the first line already shows.
    this.diff = edit.diff
      .replace(/\n+$/, "")
      .split("\n")
      .filter((l, i) => !(i < 2 && (l.startsWith("--- ") || l.startsWith("+++ "))) && l !== "");
  }

  protected override key(width: number): string {
    return `${width}:${this.view.expanded}`;
  }

  protected build(width: number): string[] {
    const t = this.theme;
    const e = this.edit;
    const what = e.action === "move" ? `moved ${e.from ?? "?"} → ${e.path}` : `${e.action} ${e.path}`;
    const counts = `${t.ok(`+${e.added}`)} ${t.error(`−${e.removed}`)}`;
    const lines = this.standalone ? [""] : [];
    lines.push(clip(`  ${t.accent("✎")} ${what} ${counts}`, width));
    const style = (l: string): string => {
      const line = sanitize(l);
      if (line.startsWith("@@")) return t.dim(line);
      if (line.startsWith("+")) return t.ok(line);
      if (line.startsWith("-")) return t.error(line);
      if (line.startsWith("\\")) return t.dim(line); // "\ No newline at end of file"
      return line;
    };
    const all = this.diff;
    let shown: string[];
    if (this.view.expanded) {
      shown = all.slice(0, DIFF_EXPANDED_MAX).map(style);
      if (all.length > DIFF_EXPANDED_MAX)
        shown.push(t.warn(`… ${(all.length - DIFF_EXPANDED_MAX).toLocaleString("en-US")} more lines`));
    } else if (all.length <= DIFF_FOLDED + 1) {
      shown = all.map(style);
    } else {
      shown = [
        ...all.slice(0, DIFF_FOLDED).map(style),
        t.dim(`… ${(all.length - DIFF_FOLDED).toLocaleString("en-US")} more lines · ctrl+o shows all`),
      ];
    }
    const gutter = t.dim("┆");
    for (const l of shown) lines.push(clip(`    ${gutter} ${l}`, width));
    return lines;
  }
}
