// The server's API as the pages use it: event streams (EventSource, which reconnects by itself and says
// the last event id it saw) and the session actions.
import { useEffect, useState } from "preact/hooks";
import type { ApprovalView } from "../../commands/approval-words.js";
import type { WebSession } from "../web-session.js";

export type Connection = "connecting" | "open" | "reconnecting" | "refused";

/** How an EventSource stands after an error: trying again, or given up (the server refused it). */
export function afterError(source: EventSource): Connection {
  return source.readyState === EventSource.CLOSED ? "refused" : "reconnecting";
}

/** Every session, live: the server pushes the list whenever it changes. */
export function useSessions(): { sessions: WebSession[] | undefined; connection: Connection } {
  const [sessions, setSessions] = useState<WebSession[] | undefined>(undefined);
  const [connection, setConnection] = useState<Connection>("connecting");
  useEffect(() => {
    const source = new EventSource("/api/sessions/stream");
    source.onopen = () => setConnection("open");
    source.onerror = () => setConnection(afterError(source));
    source.addEventListener("sessions", (e) => setSessions(JSON.parse((e as MessageEvent<string>).data)));
    return () => source.close();
  }, []);
  return { sessions, connection };
}

/** A POST of `body` to the session's `action`: the server's answer, or an error saying why it refused. */
async function post<T>(id: string, action: string, body: object): Promise<T> {
  const res = await fetch(`/api/sessions/${id}/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new Error(answer.error ?? `the server answered ${res.status}`);
  return answer;
}

/** A session action: what the server said, or why it could not. */
export async function act(
  id: string,
  action: "send" | "interrupt" | "stop" | "approve",
  body: object = {},
): Promise<string> {
  return (await post<{ said?: string }>(id, action, body)).said ?? "done";
}

/** A button's action: busy while it runs, then what it said (or why it could not) for the person. */
export function useAction(): {
  busy: boolean;
  said: string;
  run(action: () => Promise<string>): Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState("");
  const run = async (action: () => Promise<string>) => {
    setBusy(true);
    try {
      setSaid(await action());
    } catch (error) {
      setSaid((error as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, said, run };
}

/**
 * What `ask` answers, asked again whenever `deps` change (an answer to an earlier ask, or a failed ask,
 * changes nothing), and a setter for a newer value the page got by other means.
 */
export function useAsked<T>(ask: () => Promise<T>, deps: unknown[]): [T | undefined, (value: T) => void] {
  const [value, setValue] = useState<T | undefined>(undefined);
  useEffect(() => {
    let current = true;
    ask()
      .then((v) => current && setValue(v))
      .catch(() => {});
    return () => {
      current = false;
    };
  }, deps);
  return [value, setValue];
}

/** The session's goal and autonomous mode (src/webui/actions.ts); null when no host serves it. */
export interface Steering {
  goal: string | null;
  done: boolean;
  autonomy: { gates: string[] } | null;
}

export async function fetchSteering(id: string): Promise<Steering | null> {
  const res = await fetch(`/api/sessions/${id}/steering`);
  if (!res.ok) return null;
  return ((await res.json()) as { steering: Steering | null }).steering;
}

/** Sets the goal, or turns autonomous mode on (with its gates) or off: the steering after. */
export async function steer(
  id: string,
  change: { goal?: string; autonomy?: "on" | "off"; gates?: string[] },
): Promise<Steering> {
  return (await post<{ steering: Steering }>(id, "steer", change)).steering;
}

/** Whether a session waits for a person to answer a request (as `relm agents` says "needs approval"). */
export function needsApproval(s: WebSession): boolean {
  return Boolean(s.approvals) && (s.status === "running" || s.status === "waiting");
}

/** The session's requests waiting for a person now (empty when no host serves it). */
export async function pendingApprovals(id: string): Promise<ApprovalView[]> {
  const res = await fetch(`/api/sessions/${id}/approvals`);
  if (!res.ok) return [];
  return ((await res.json()) as { pending: ApprovalView[] }).pending;
}
