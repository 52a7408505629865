// A session's cost in the one wording every front end uses (the terminal UI, line mode, relm agents, the
// web page, exports), so the same session shows the same cents wherever it is looked at. Here, in the
// lowest layer, because the agent's spend line (agent/budget) and the browser's code both need it; no
// imports, so the web page can bundle it.

/**
 * US dollars: cents for amounts of a dollar or more, four decimals below (so $0.0028 is not "$0.00");
 * nothing spent is "$0.00".
 */
function money(n: number): string {
  if (n === 0) return "$0.00";
  return Math.abs(n) >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}

/**
 * A cost as every view words it: money() when the model has prices (known in advance, "$0.00" before
 * anything is spent), "unpriced" when it has none (add its prices to config.json to see the figure).
 */
export function costWord(cost: number | null): string {
  return cost === null ? "unpriced" : money(cost);
}
