// Plots of a session, from the events its page already has (no request of their own): tokens over time
// (input read from the prompt cache apart from the rest), cost over time, how long each cell ran, and
// the gates' runs over an autonomous run (gate-strip.ts).
// Hand-written SVG: three small charts do not justify a chart library in the page (docs/dependencies.md).
import { html } from "htm/preact";
import type { UsagePoint } from "../usage.js";
import { cost, duration, tokens } from "./format.js";
import { GateStrip } from "./gate-strip.js";
import type { GateRun, Item } from "./transcript.js";

const W = 320;
const H = 120;
const PAD = 4;

/** A cumulative series as polyline points scaled into the chart. */
function line(ts: number[], values: number[], t0: number, t1: number, max: number): string {
  const x = (t: number) => PAD + ((t - t0) / Math.max(1, t1 - t0)) * (W - 2 * PAD);
  const y = (v: number) => H - PAD - (v / Math.max(1e-12, max)) * (H - 2 * PAD);
  return ts.map((t, i) => `${x(t).toFixed(1)},${y(values[i] ?? 0).toFixed(1)}`).join(" ");
}

function running(values: number[]): number[] {
  let sum = 0;
  return values.map((v) => {
    sum += v;
    return sum;
  });
}

export function SpendChart({ usage }: { usage: readonly UsagePoint[] }) {
  const ts = usage.map((u) => u.t);
  const t0 = ts[0] ?? 0;
  const t1 = ts.at(-1) ?? 0;
  const cached = running(usage.map((u) => u.cached));
  const fresh = running(usage.map((u) => u.fresh));
  const spent = running(usage.map((u) => u.cost));
  const max = Math.max(cached.at(-1) ?? 0, fresh.at(-1) ?? 0);
  const total = spent.at(-1) ?? 0;
  return html`<figure class="chart" data-chart="tokens">
      <figcaption>
        tokens over time: <span class="fresh">■ not cached ${tokens(fresh.at(-1) ?? 0)}</span>
        <span class="cached">■ cached ${tokens(cached.at(-1) ?? 0)}</span>
      </figcaption>
      <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label="tokens over time">
        <polyline class="fresh" data-points=${usage.length} points=${line(ts, fresh, t0, t1, max)} />
        <polyline class="cached" data-points=${usage.length} points=${line(ts, cached, t0, t1, max)} />
      </svg>
    </figure>
    <figure class="chart" data-chart="cost">
      <figcaption>cost over time: ${cost(total)}</figcaption>
      <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label="cost over time">
        <polyline class="cost" data-points=${usage.length} points=${line(ts, spent, t0, t1, total)} />
      </svg>
    </figure>`;
}

function CellChart({ items }: { items: readonly Item[] }) {
  const cells = items.flatMap((i) =>
    i.kind === "cell" && i.durationMs !== undefined ? [{ ms: i.durationMs, status: i.status ?? "ok" }] : [],
  );
  if (cells.length === 0) return null;
  const max = Math.max(...cells.map((c) => c.ms), 1);
  const step = (W - 2 * PAD) / cells.length;
  const longest = Math.max(...cells.map((c) => c.ms));
  return html`<figure class="chart" data-chart="cells">
    <figcaption>cell durations: ${cells.length} cells, longest ${duration(longest)}</figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label="cell durations">
      ${cells.map((c, i) => {
        const h = Math.max(1, (c.ms / max) * (H - 2 * PAD));
        return html`<rect class=${`bar ${c.status}`} x=${(PAD + i * step).toFixed(1)} y=${(H - PAD - h).toFixed(1)} width=${Math.max(1, step - 1).toFixed(1)} height=${h.toFixed(1)}><title>cell ${i + 1}: ${duration(c.ms)}</title></rect>`;
      })}
    </svg>
  </figure>`;
}

/** The session's plots, folded until opened (a phone has little room). */
export function Charts({
  usage,
  items,
  gates,
}: {
  usage: readonly UsagePoint[];
  items: readonly Item[];
  gates: readonly GateRun[];
}) {
  if (usage.length === 0 && gates.length === 0) return null;
  const runs = gates.length
    ? `, ${gates.length} gate runs (${gates.filter((g) => g.passed).length} passed)`
    : "";
  return html`<details class="charts">
    <summary>plots: ${usage.length} model calls${runs}</summary>
    <${GateStrip} gates=${gates} />
    <div class="chart-row">
      <${SpendChart} usage=${usage} />
      <${CellChart} items=${items} />
    </div>
  </details>`;
}
