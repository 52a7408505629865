// The event source of bench/web.mjs's tree: a session in $RELM_HOME whose live host is this process,
// on the session hosts' own socket and protocol (dist/host/server.js's SessionServer, which every host
// serves through): `relm web` finds it as it finds any live host (its state file, its socket), attaches
// with SessionHandle and streams what it publishes to the page. Once a client attaches, the host "fans
// out" NODES sub-agents — the root's child_spawned events numbered in the journal as a host writes them,
// the nested ones published with the spawning agent, in the shapes a real rlm.map writes — then every
// 100 ms a hundred of them say what they do (model_request, text_delta, cell, kernel started) and some
// finish. Why not a real fan-out of 1,000: each child starts its own kernel (50 children of
// `rlm.map` took 3.5 GB here), so a thousand would need ~70 GB; the page cannot tell these events from a
// real host's, and the server, socket, protocol and page are the real ones.

import { SessionServer } from "../dist/host/server.js";
import { writeStateFile } from "../dist/host/states/state.js";
import { Journal, newSessionId, readJournal, sessionDir } from "../dist/session/index.js";

const TICK_MS = 100;
const PER_TICK = 100;

export async function startTreeHost(home, nodes) {
  const id = newSessionId();
  const created = new Date().toISOString();
  const dir = sessionDir(home, id);
  const journal = Journal.create(dir, {
    id,
    created,
    cwd: "/home/you/survey",
    title: `a fan-out of ${nodes}`,
    provider: "openai",
    model: "bench",
    relm: "bench",
  });
  journal.append({ type: "user", text: "fan out over the thousand files" });
  writeStateFile(home, {
    id,
    title: `a fan-out of ${nodes}`,
    cwd: "/home/you/survey",
    created,
    status: "running",
    lastActivity: created,
    tokens: 0,
    cost: 0,
    pid: process.pid,
    detached: true,
  });
  // Ids as hosts make them; ten at the top, the rest ten under each agent above (a tree three deep).
  const kids = Array.from({ length: nodes }, () => newSessionId());
  const parentOf = (i) => (i < 10 ? undefined : kids[Math.floor((i - 10) / 10)]);
  let published = 0;
  let server;
  const publish = (event) => {
    published++;
    server.publish(event);
  };
  let timer;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    // The spawns: as rlm.map makes them, a hundred a tick, each child's kernel started.
    let spawned = 0;
    let tick = 0;
    timer = setInterval(() => {
      tick++;
      for (let j = 0; j < PER_TICK && spawned < nodes; j++, spawned++) {
        const i = spawned;
        const parent = parentOf(i);
        const spawn = {
          type: "child_spawned",
          id: kids[i],
          name: `map-${i}`,
          task: `summarise file ${i} of the survey and list what it cites`,
          model: "bench",
          label: String(i),
          variables: [{ name: "item", type: "int", size: "scalar" }],
        };
        // The root's own spawns are in its journal (numbered); a child's are its own journal's.
        publish(parent ? { ...spawn, agent: parent } : journal.append(spawn));
        publish({ agent: kids[i], type: "kernel", event: "started", detail: "kernel 3.12 started" });
      }
      if (spawned < nodes) return;
      // Then a hundred agents a tick say what they do; one in fifty of those finishes.
      for (let j = 0; j < PER_TICK; j++) {
        const k = (tick * PER_TICK + j) % nodes;
        const agent = kids[k];
        const kind = j % 4;
        if (kind === 0) publish({ agent, type: "model_request", turn: tick, messages: 3 });
        else if (kind === 1) publish({ agent, type: "text_delta", text: "reading the next section… " });
        else if (kind === 2)
          publish({ agent, type: "cell", callId: `c${tick}`, code: "print(len(open(path).read()))" });
        else if (tick % 50 === 0) {
          const finished = {
            type: "child_finished",
            id: agent,
            name: `map-${k}`,
            label: String(k),
            status: "done",
            result: "12 citations",
            spent: { turns: 3, tokens: 1617 + k, elapsedMs: 46_187, cost: 0.0021 },
          };
          const parent = parentOf(k);
          publish(parent ? { ...finished, agent: parent } : journal.append(finished));
        } else publish({ agent, type: "cell_output_delta", callId: `c${tick}`, text: "4711\n" });
      }
    }, TICK_MS);
  };
  const journalPath = `${dir}/journal.jsonl`;
  server = await SessionServer.listen(home, id, {
    replay(after, emit) {
      const { events } = readJournal(journalPath);
      for (const event of events) if (event.n > after) emit(event);
      return events.at(-1)?.n ?? 0;
    },
    call(method) {
      // What relm web asks a host for beside the events: nothing waits, no goal, not autonomous.
      if (method === "approvals") return { pending: [] };
      if (method === "goal") return { goal: null, done: false };
      if (method === "autonomy") return { autonomy: null };
      throw new Error(`the bench's host does not answer ${method}`);
    },
    attached(count) {
      if (count > 0) start();
    },
  });
  return {
    id,
    published: () => published,
    async close() {
      clearInterval(timer);
      await server.close();
      journal.close();
    },
  };
}
