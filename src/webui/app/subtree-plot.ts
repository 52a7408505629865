// The plot of one subtree of the sub-agent tree (or of the whole tree): tokens (cached input apart) and
// cost over time of every model call made in it, drawn as the session's own plots are (charts.ts). The
// calls come from the server (src/webui/subtree-usage.ts), which reads the subtree's journals: a page
// has only its root's events after a replay, and a child's calls are in the child's journal. While the
// tree changes it is asked again, at most every two seconds.
import { html } from "htm/preact";
import { useEffect, useState } from "preact/hooks";
import type { SubtreeUsage } from "../usage.js";
import { SpendChart } from "./charts.js";

const AGAIN_MS = 2000;

/** `top`: a sub-agent's id, or undefined for the whole tree; `changed`: anything that says the tree moved. */
export function SubtreePlot({
  session,
  top,
  label,
  changed,
  close,
}: {
  session: string;
  top: string | undefined;
  label: string;
  changed: number;
  close: () => void;
}) {
  const [usage, setUsage] = useState<SubtreeUsage | undefined>(undefined);
  const [error, setError] = useState("");
  const [asked, setAsked] = useState(0);
  useEffect(() => setUsage(undefined), [top]);
  useEffect(() => {
    // Asked at once for a new subtree; after a change of the tree, no sooner than AGAIN_MS after the last.
    const wait = Math.max(0, asked + AGAIN_MS - Date.now());
    const timer = setTimeout(
      async () => {
        setAsked(Date.now());
        const path = top ? `agents/${top}/usage` : "usage";
        try {
          const res = await fetch(`/api/sessions/${session}/${path}`);
          const body = (await res.json()) as SubtreeUsage & { error?: string };
          if (res.ok) {
            setUsage(body);
            setError("");
          } else setError(body.error ?? `the server answered ${res.status}`);
        } catch (e) {
          setError((e as Error).message);
        }
      },
      usage?.top === (top ?? session) ? wait : 0,
    );
    return () => clearTimeout(timer);
  }, [top, changed]);
  const calls = usage?.calls ?? [];
  const agents = [...new Set(calls.map((c) => c.agent))];
  return html`<div class="subtree-plot" data-top=${top ?? ""} data-agents=${agents.join(" ")} data-calls=${usage ? calls.length : ""}>
    <div class="muted small">
      ${top ? "subtree of" : "the whole tree:"} <strong>${label}</strong>
      ${usage ? ` · ${calls.length} model calls by ${agents.length} of its ${usage.agents} agents` : " · reading its journals…"}
      ${error ? ` · ${error}` : ""}
      ${" "}<button type="button" class="close-plot" onClick=${close}>close</button>
    </div>
    ${calls.length > 0 ? html`<div class="chart-row"><${SpendChart} usage=${calls} /></div>` : ""}
  </div>`;
}
