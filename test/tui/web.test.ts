// /web in the terminal UI: starts `relm web` for the session (its own detached process) and prints the
// address of this session's page; a second /web reuses the server while it answers.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionIds, useTui } from "../support/tui.js";

const { startRig, open } = useTui();

describe("/web in the terminal UI", () => {
  it("starts relm web once, prints this session's address, and reuses the server", async () => {
    const rig = await startRig("openai", { script: [{ text: "hello back" }] });
    const ui = open(rig, [], { cols: 220 });
    let pid: number | undefined;
    try {
      await ui.waitFor("new session");
      await ui.type("hello");
      await ui.press("enter");
      await ui.waitFor("hello back");
      const [id] = sessionIds(rig.home);
      await ui.type("/web");
      await ui.press("enter");
      await ui.waitFor("✓ started relm web: http://127.0.0.1:", { timeoutMs: 60_000 });
      const record = JSON.parse(readFileSync(join(rig.home, "web.json"), "utf8")) as {
        pid: number;
        url: string;
      };
      pid = record.pid;
      await ui.waitFor(`#/s/${id}`);
      const url = new URL(record.url);
      const token = url.searchParams.get("token");
      // The server answers with the token and lists this session.
      const res = await fetch(`${url.origin}/api/sessions`, { headers: { authorization: `token ${token}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: string }[]).map((s) => s.id)).toContain(id);
      expect((await fetch(`${url.origin}/api/sessions`)).status).toBe(403);

      await ui.type("/web");
      await ui.press("enter");
      await ui.waitFor("relm web is running: http://127.0.0.1:");
      expect(JSON.parse(readFileSync(join(rig.home, "web.json"), "utf8"))).toEqual(record);
    } finally {
      if (pid) process.kill(pid, "SIGTERM");
    }
  }, 180_000);
});
