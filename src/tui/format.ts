import { costWord } from "../commands/format.js";
import { formatDuration } from "../config/duration.js";

export { ago, costWord, formatTokens } from "../commands/format.js";

/** A turn's spend in one line, as the status line words it ("unpriced" when prices are unknown). */
export function spendLine(spent: {
  turns: number;
  tokens: number;
  elapsedMs: number;
  cost: number | null;
}): string {
  const calls = `${spent.turns} model call${spent.turns === 1 ? "" : "s"}`;
  return `${calls} · ${spent.tokens.toLocaleString("en-US")} tokens · ${formatDuration(spent.elapsedMs)} · ${costWord(spent.cost)}`;
}
