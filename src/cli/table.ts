// The plain-text tables of the listings (`relm agents`, `relm models`, `relm checkpoints`).

/** Rows as columns padded to their widest cell, two spaces apart, each line without trailing spaces. */
export function table(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
