// A page's transcript, live: the events of one stream (a session's, or one sub-agent's) folded into a
// Transcript, drawn at most once a frame. After a dropped connection the browser reconnects by itself
// and says the last event it had (Last-Event-ID): the server replays only what came after, and the
// transcript drops anything it has already seen.
import { useEffect, useRef, useState } from "preact/hooks";
import type { AgentEvent } from "../../agent/core/events.js";
import { afterError, type Connection } from "./api.js";
import { Transcript } from "./transcript.js";

export function useTranscript(path: string): {
  transcript: Transcript;
  version: number;
  connection: Connection;
  live: boolean;
} {
  const transcript = useRef(new Transcript()).current;
  const [version, setVersion] = useState(0);
  const [connection, setConnection] = useState<Connection>("connecting");
  const [live, setLive] = useState(false);
  useEffect(() => {
    let frame = 0;
    // Many events at once (a replay) are drawn once per frame.
    const changed = () => {
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          setVersion((v) => v + 1);
        });
    };
    const source = new EventSource(path);
    source.onopen = () => setConnection("open");
    source.onerror = () => setConnection(afterError(source));
    source.onmessage = (e: MessageEvent<string>) => {
      if (transcript.apply(JSON.parse(e.data) as AgentEvent)) changed();
    };
    // Sub-agents' events come many to a message (src/webui/server.ts).
    source.addEventListener("batch", (e) => {
      let any = false;
      for (const event of JSON.parse((e as MessageEvent<string>).data) as AgentEvent[])
        if (transcript.apply(event)) any = true;
      if (any) changed();
    });
    source.addEventListener("live", (e) => setLive((e as MessageEvent<string>).data === "true"));
    return () => {
      source.close();
      cancelAnimationFrame(frame);
    };
  }, [path]);
  return { transcript, version, connection, live };
}
