import type { AgentEvent, EventSink } from "../../agent/core/events.js";
import {
  ENTRY_ID_PATTERN,
  type EntryState,
  type HarnessContext,
  HarnessStore,
  type LoadedHarness,
  useKey,
} from "../store/index.js";

/**
 * Counts uses of harness entries from the event stream: a memory or prompt whose id the model cites in
 * its reply or code, and a spec a child is started from. Each entry counts once per session; skills
 * are counted by the kernel when imported (python/relm/harness.py).
 */
export function trackHarnessUses(sink: EventSink, harness: LoadedHarness, ctx: HarnessContext): EventSink {
  const byId = new Map(harness.entries.map((e) => [e.id, e]));
  const specs = new Map(harness.entries.filter((e) => e.kind === "agent").map((e) => [e.title, e]));
  const counted = new Set<string>();
  let session: string | undefined;
  const count = (entry: EntryState) => {
    if (counted.has(entry.id)) return;
    counted.add(entry.id);
    try {
      HarnessStore.of(entry.scope, ctx).recordUse(useKey(entry), session);
    } catch {
      // A use count is not worth failing a session over (e.g. a read-only project checkout).
    }
  };
  const scan = (text: string) => {
    for (const match of text.matchAll(ENTRY_ID_PATTERN)) {
      const entry = byId.get(match[0]);
      if (entry) count(entry);
    }
  };
  return (event: AgentEvent) => {
    if (byId.size > 0) {
      if (event.type === "session" && event.agent === undefined) session = event.id;
      else if (event.type === "model_response") scan(event.text);
      else if (event.type === "cell") scan(event.code);
      else if (event.type === "child_spawned" && event.spec) {
        const entry = specs.get(event.spec);
        if (entry) count(entry);
      }
    }
    sink(event);
  };
}
