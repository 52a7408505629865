// The learning benchmark (bench/learning, docs/learning.md) must not rot: one trap family through the
// built binary with the scripted learner over real HTTP, real kernels and real gate scripts, and the
// mechanics it reports checked on the captured requests themselves.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CapturedRequest, type ScriptedModel, startScriptedModel } from "../../src/scripted/index.js";

interface Session {
  task: string;
  role: string;
  green: boolean;
  turns: number;
  failures: number;
  learned: string[];
  lessonInFirstRequest: boolean;
  repeatsAfterLesson: number | null;
  wire: { firstHasLesson: boolean; beforePassHasLesson: boolean | null; afterPassHasLesson: boolean | null };
}
interface Track {
  dir: string;
  sessions: Session[];
}
interface Project {
  key: string;
  lesson: string;
  family: { id: string };
}
interface Bench {
  FAMILIES: { id: string }[];
  makeProject(family: unknown, seed: number, k: number): Project;
  checkProject(family: unknown, seed: number, k: number, python?: string): string[];
  resolvePython(): string;
  makeLearner(opts: { tasks: Map<string, unknown> }): (ctx: unknown) => unknown;
  runTrack(opts: Record<string, unknown>): Promise<Track>;
}

// The bench is plain JavaScript outside src/: loaded by path, typed by the interface above.
const load = async (): Promise<Bench> => {
  const from = (file: string) => import(new URL(`../../bench/learning/${file}`, import.meta.url).href);
  return {
    ...(await from("project.mjs")),
    ...(await from("selfcheck.mjs")),
    ...(await from("learner.mjs")),
    ...(await from("conditions.mjs")),
  };
};

let bench: Bench;
let model: ScriptedModel;
const tasks = new Map<string, unknown>();
const root = mkdtempSync(join(tmpdir(), "relm-learning-test-"));

beforeAll(async () => {
  bench = await load();
  model = await startScriptedModel({ script: bench.makeLearner({ tasks }) as never });
});
afterAll(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

function run(condition: string): Promise<Track> {
  const family = bench.FAMILIES[0];
  const name = `bench-test-${condition}`;
  return bench.runTrack({
    project: bench.makeProject(family, 1, 0),
    condition,
    root,
    python: bench.resolvePython(),
    model: { name, env: { RELM_PROVIDER: "openai", RELM_BASE_URL: model.openaiBaseUrl, RELM_MODEL: name } },
    budget: { turns: 30, gateFailures: 10 },
    tasks,
    requests: model.requests,
  });
}

/** The system prompt and user messages of a captured chat-completions request. */
function told(r: CapturedRequest | undefined): string {
  const messages =
    (r?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages
    .filter((m) => m.role === "system" || m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}
const isRefine = (r: CapturedRequest) => r.rawBody.includes("Propose harness edits for session");
const ofModel = (name: string) => model.requests.filter((r) => (r.body as { model?: string }).model === name);

describe("bench/learning with the scripted learner", () => {
  it("the family's own data: the plain solution fails its gate stating the convention, the right one passes", () => {
    const family = bench.FAMILIES[0];
    expect(bench.checkProject(family, 1, 0)).toEqual([]);
  });

  it("--learn: the request after the learning pass carries the lesson and the one before it does not; the learner then goes green and does not repeat the failure", async () => {
    const track = await run("learn");
    const project = bench.makeProject(bench.FAMILIES[0], 1, 0);
    const [first] = track.sessions;
    expect(first?.green).toBe(true);
    expect(first?.learned).toHaveLength(1);
    const lesson = first?.learned[0] as string;
    // Learnt from the gate's own words (the convention's key), not given: the key is in the lesson.
    expect(lesson).toContain(project.key);

    // On the wire: the agent requests of session 1, split at the refine request of its learning pass.
    const requests = ofModel("bench-test-learn");
    const pass = requests.findIndex(isRefine);
    expect(pass).toBeGreaterThan(0);
    const before = requests.slice(0, pass).filter((r) => !isRefine(r));
    const after = requests.slice(pass + 1).find((r) => !isRefine(r));
    expect(before.every((r) => !told(r).includes(lesson))).toBe(true);
    expect(told(after)).toContain(lesson);
    expect(first?.wire).toMatchObject({ beforePassHasLesson: false, afterPassHasLesson: true });
    expect(first?.repeatsAfterLesson).toBe(0);
    // Two failures (the pass's trigger), then the right solution: fewer than the three a learner without
    // the lesson needs (--stubborn 3).
    expect(first?.failures).toBe(2);

    // Held-out sessions: what the journal says of their first request agrees with the wire (whether or not
    // lessons carry over to the next session of the project yet).
    for (const s of track.sessions.filter((x) => x.role === "held-out")) {
      expect(s.green).toBe(true);
      expect(s.lessonInFirstRequest).toBe(s.wire.firstHasLesson);
    }
    rmSync(track.dir, { recursive: true, force: true });
  }, 300_000);

  it("expert lesson in the project scope: every session's first request carries it and the gate passes at the first try", async () => {
    const track = await run("expert");
    const project = bench.makeProject(bench.FAMILIES[0], 1, 0);
    const first = ofModel("bench-test-expert")[0];
    expect(told(first)).toContain(project.lesson);
    for (const s of track.sessions.filter((x) => x.role !== "control")) {
      expect(s).toMatchObject({ green: true, failures: 0, lessonInFirstRequest: true, turns: 2 });
      expect(s.wire.firstHasLesson).toBe(true);
    }
    rmSync(track.dir, { recursive: true, force: true });
  }, 300_000);
});
