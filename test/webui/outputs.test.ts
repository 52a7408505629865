// The images `relm web` serves from a session's outputs/ folder (src/webui/outputs.ts): a kernel writes
// that folder, so only a plain image file is sent; a link (to a file anywhere), an SVG, a dotfile or a
// folder is "not found", as a name that is not there is.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { sessionDir } from "../../src/session/index.js";
import { sendOutputFile } from "../../src/webui/outputs.js";
import { tempDir } from "../support/cli.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

describe("the session images relm web serves", () => {
  it("sends a plain image; refuses a link out of the folder, SVG, dotfiles and folders", async () => {
    const home = tempDir();
    onTestFinished(home.cleanup);
    const outputs = join(sessionDir(home.path, "s1"), "outputs");
    mkdirSync(join(outputs, "dir.png"), { recursive: true });
    writeFileSync(join(outputs, "plot.png"), PNG);
    const secret = join(home.path, "secret.png");
    writeFileSync(secret, "not for the page");
    symlinkSync(secret, join(outputs, "link.png"));
    writeFileSync(join(outputs, "draw.svg"), "<svg onload='alert(1)'/>");
    writeFileSync(join(outputs, ".hidden.png"), PNG);

    const server = createServer((req, res) =>
      sendOutputFile(res, home.path, "s1", decodeURIComponent(req.url?.slice(1) ?? ""), { "x-test": "1" }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const get = async (name: string) => {
      const res = await fetch(base + encodeURIComponent(name));
      return {
        status: res.status,
        type: res.headers.get("content-type"),
        body: Buffer.from(await res.arrayBuffer()),
      };
    };

    const ok = await get("plot.png");
    expect(ok).toMatchObject({ status: 200, type: "image/png" });
    expect(ok.body.equals(PNG)).toBe(true);
    for (const name of ["link.png", "draw.svg", ".hidden.png", "dir.png", "missing.png", "../secret.png"]) {
      const refused = await get(name);
      expect({ name, status: refused.status, body: refused.body.toString() }).toEqual({
        name,
        status: 404,
        body: "not found\n",
      });
    }
  });
});
