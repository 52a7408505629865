// The parts of a transcript's page drawn from its Transcript — the plots, the tree of sub-agents, the
// items — each drawn again only when what it shows changed (the transcript's revisions). An element
// Preact is handed again unchanged is skipped whole, so the events of a thousand sub-agents (ten a second
// each, docs/benchmarks.md) redraw the tree's rows in sight and not the transcript and plots beside it.
import { html } from "htm/preact";
import { useMemo } from "preact/hooks";
import { Charts } from "./charts.js";
import type { Transcript } from "./transcript.js";
import { TranscriptView } from "./transcript-view.js";
import { TreeView } from "./tree-view.js";

export function useTranscriptParts(
  transcript: Transcript,
  session: string,
): { charts: unknown; tree: unknown; items: unknown } {
  const { itemsRevision, treeRevision } = transcript;
  const charts = useMemo(
    () =>
      html`<${Charts} usage=${transcript.usage} items=${transcript.items} gates=${transcript.gates} version=${itemsRevision} />`,
    [transcript, itemsRevision],
  );
  const tree = useMemo(
    () =>
      html`<${TreeView} session=${session} agents=${transcript.agents} roots=${transcript.roots} version=${treeRevision} />`,
    [transcript, session, treeRevision],
  );
  const items = useMemo(
    () => html`<${TranscriptView} id=${session} items=${transcript.items} version=${itemsRevision} />`,
    [transcript, session, itemsRevision],
  );
  return { charts, tree, items };
}
