// The gates over an autonomous run, as a strip: a mark a run, in order, green when every gate passed and
// red when one failed, its tooltip naming each command and how it ended. Where a person would rather
// look than read: "failed, failed, failed, passed" at a glance, hours of a night's run in one line.
import { html } from "htm/preact";
import type { GateRun } from "./transcript.js";

const W = 320;
const H = 28;
const PAD = 2;

function said(run: GateRun, i: number): string {
  const lines = run.results.map(
    (r) =>
      `${r.passed ? "✓" : "✗"} ${r.command}${r.timedOut ? " (timed out)" : r.passed ? "" : ` (exit ${r.exitCode ?? "?"})`}`,
  );
  if (run.skipped) lines.push(`${run.skipped} not run after the failure`);
  return `run ${i + 1}, ${new Date(run.t).toLocaleTimeString()}: ${run.passed ? "passed" : "failed"}\n${lines.join("\n")}`;
}

export function GateStrip({ gates }: { gates: readonly GateRun[] }) {
  if (gates.length === 0) return null;
  const failed = gates.filter((g) => !g.passed).length;
  const last = gates.at(-1) as GateRun;
  const step = (W - 2 * PAD) / gates.length;
  return html`<figure class="chart gate-strip" data-chart="gates">
    <figcaption>
      gates over the autonomous run: ${gates.length} runs, ${failed} failed, the last ${last.passed ? "passed" : "failed"}
    </figcaption>
    <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-label="gate runs">
      ${gates.map(
        (g, i) =>
          html`<rect class=${`gate ${g.passed ? "pass" : "fail"}`} x=${(PAD + i * step).toFixed(1)} y=${PAD} width=${Math.max(1, step - 2).toFixed(1)} height=${H - 2 * PAD}><title>${said(g, i)}</title></rect>`,
      )}
    </svg>
  </figure>`;
}
