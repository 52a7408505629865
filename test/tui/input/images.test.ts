// Images into the prompt, through the real UI and its host: a dropped image file's path and ctrl+v (the
// clipboard read by xclip — here a stand-in script on PATH that prints a PNG) put `[image #N name]` in
// the input, and the image goes to the model as an image part of the message; a model without image
// input is not sent it, and the UI says so.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imagesSent, TINY_PNG } from "../../support/images.js";
import { untilJournal, useTui } from "../../support/tui.js";
import { pythonWaitForFile } from "../../support/wait.js";

const { startRig, open } = useTui();

describe("images into the prompt", () => {
  it("a dropped image path and ctrl+v (xclip) become image parts of the next message", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "a tiny picture" }, { text: "the clipboard one" }] },
      { config: { acceptsImages: true } },
    );
    writeFileSync(join(rig.cwd, "my dot.png"), Buffer.from(TINY_PNG, "base64"));
    // xclip as this machine would run it: a program on PATH that prints the clipboard's PNG.
    const bin = join(rig.cwd, "..", `bin-${Date.now()}`);
    mkdirSync(bin);
    writeFileSync(join(bin, "xclip"), `#!/bin/sh\nprintf '%s' '${TINY_PNG}' | base64 -d\n`);
    chmodSync(join(bin, "xclip"), 0o755);
    const ui = open(rig, [], { env: { ...rig.env, PATH: `${bin}:${rig.env.PATH}` } });
    await ui.waitFor("new session");
    // A terminal pastes a dropped file as its path, spaces escaped.
    await ui.paste(`${join(rig.cwd, "my dot.png").replace(/ /g, "\\ ")}`);
    await ui.waitFor("[image #1 my dot.png]");
    await ui.type("what is this?");
    await ui.press("enter");
    await ui.waitFor(/✓ 1 model call/);
    const first = imagesSent(rig.model.requests.at(-1)?.rawBody);
    expect(first).toEqual([`data:image/png;base64,${TINY_PNG}`]);
    const journal = await untilJournal(rig.home, (l) => l.some((e) => e.type === "user"));
    expect(journal.find((e) => e.type === "user")).toMatchObject({
      text: "[image #1 my dot.png] what is this?",
      images: [expect.stringMatching(/^inputs\/image-.*\.png$/)],
    });

    await ui.press("ctrl-v");
    await ui.waitFor("[image #2 clipboard.png]");
    await ui.type("and this one");
    await ui.press("enter");
    await ui.waitFor("the clipboard one");
    expect(imagesSent(rig.model.requests.at(-1)?.rawBody)).toHaveLength(1);
  });

  it("a model without image input is not sent the image, and the UI says so", async () => {
    const rig = await startRig(
      "openai",
      { script: [{ text: "text only here" }] },
      { config: { acceptsImages: false } },
    );
    writeFileSync(join(rig.cwd, "dot.png"), Buffer.from(TINY_PNG, "base64"));
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.paste("dot.png");
    await ui.waitFor("[image #1 dot.png]");
    await ui.press("enter");
    await ui.waitFor("the image was not sent: scripted does not take images");
    await ui.waitFor("text only here");
    expect(imagesSent(rig.model.requests.at(-1)?.rawBody)).toEqual([]);
  });

  it("a message with an image typed while the agent works stays in the input, and goes with its image later", async () => {
    let release = "";
    const rig = await startRig(
      "openai",
      {
        script: [
          () => ({ code: pythonWaitForFile(release) }),
          { text: "first done" },
          { text: "saw the later image" },
        ],
      },
      { config: { acceptsImages: true } },
    );
    release = join(rig.cwd, "go-on");
    writeFileSync(join(rig.cwd, "dot.png"), Buffer.from(TINY_PNG, "base64"));
    const ui = open(rig);
    await ui.waitFor("new session");
    await ui.type("work a while");
    await ui.press("enter");
    await ui.waitFor("◌ running");
    await ui.paste("dot.png");
    await ui.type("look later");
    await ui.press("enter");
    await ui.waitFor("send the image when the turn has ended");
    writeFileSync(release, "");
    await ui.waitFor(/✓ \d+ model calls?/);
    // Still in the input, marker and all: Enter sends it now, with the image.
    await ui.waitFor("[image #1 dot.png] look later");
    await ui.press("enter");
    await ui.waitFor("saw the later image");
    expect(imagesSent(rig.model.requests.at(-1)?.rawBody)).toHaveLength(1);
  });
});
