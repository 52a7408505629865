import { formatDuration } from "../config/duration.js";
import { costWord } from "../config/money.js";
import type { SpendRecord } from "../session/types.js";

export { ago, formatTokens } from "../commands/format.js";
export { costWord } from "../config/money.js";

/** A turn's spend in one line, as the status line words it ("unpriced" when prices are unknown). */
export function spendLine(spent: SpendRecord): string {
  const calls = `${spent.turns} model call${spent.turns === 1 ? "" : "s"}`;
  return `${calls} · ${spent.tokens.toLocaleString("en-US")} tokens · ${formatDuration(spent.elapsedMs)} · ${costWord(spent.cost)}`;
}
