// The session's goal and autonomous mode, on its page, changed as the terminal UI's /goal and
// /autonomous change them (the host's `goal` and `autonomy` methods, through the server's /steer). What
// is shown is the host's answer, asked again whenever the host comes or goes; a session no host serves
// has none to show (they live in the host), and says how to bring it back.
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { fetchSteering, type Steering, steer, useAction, useAsked } from "./api.js";

function describe(s: Steering): string {
  const goal = s.goal ? `goal${s.done ? " (done)" : ""}: ${s.goal}` : "no goal";
  const auto = !s.autonomy
    ? "autonomous: off"
    : s.autonomy.gates.length > 0
      ? `autonomous: on — done when ${s.autonomy.gates.join(", ")} exit 0`
      : "autonomous: on — until done() or a budget";
  return `${goal} · ${auto}`;
}

export function SteerPanel({ id, live }: { id: string; live: boolean }) {
  const [steering, setSteering] = useAsked(() => fetchSteering(id), [id, live]);
  const [goal, setGoal] = useState("");
  const [gates, setGates] = useState("");
  const { busy, said, run } = useAction();

  const change = (what: { goal?: string; autonomy?: "on" | "off"; gates?: string[] }) =>
    run(async () => {
      setSteering(await steer(id, what));
      if (what.goal !== undefined) setGoal("");
      return "";
    });
  const setIt = (e: Event) => {
    e.preventDefault();
    if (goal.trim()) void change({ goal: goal.trim() });
  };
  // One gate a line, as /autonomous on "GATE" "GATE" takes them.
  const gateList = () =>
    gates
      .split("\n")
      .map((g) => g.trim())
      .filter(Boolean);

  return html`<details class="steer">
    <summary data-steering=${steering ? "yes" : "no"}>
      ${steering ? describe(steering) : steering === null ? "goal and autonomy: the session is not running" : "goal and autonomy"}
    </summary>
    <form class="goal-form" onSubmit=${setIt}>
      <input
        name="goal"
        type="text"
        placeholder="the objective, restated at every continuation (as /goal)"
        value=${goal}
        onInput=${(e: Event) => setGoal((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled=${busy || !goal.trim()}>Set goal</button>
    </form>
    <div class="autonomy-form">
      <textarea
        name="gates"
        rows="2"
        placeholder="gates, one shell command a line (none: until done() or a budget)"
        value=${gates}
        onInput=${(e: Event) => setGates((e.target as HTMLTextAreaElement).value)}
      ></textarea>
      <button type="button" disabled=${busy} onClick=${() => change({ autonomy: "on", gates: gateList() })}>Autonomous on</button>
      <button type="button" disabled=${busy || !steering?.autonomy} onClick=${() => change({ autonomy: "off" })}>Autonomous off</button>
    </div>
    <span class="said" role="status">${said}</span>
  </details>`;
}
