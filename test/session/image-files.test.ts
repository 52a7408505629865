// Journaled images keep their type in their name: a JPEG that look() attached is exported as a JPEG.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imageTypeOfFile } from "../../src/session/image-files.js";
import { exportSession, Journal } from "../../src/session/index.js";
import { header, tempDir } from "./helpers.js";

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);

describe("journaled image files", () => {
  it("are typed by their extension", () => {
    expect(imageTypeOfFile("outputs/cell-3-0.png")).toBe("image/png");
    expect(imageTypeOfFile("outputs/cell-3-1.jpg")).toBe("image/jpeg");
    expect(imageTypeOfFile("outputs/cell-3-2.GIF")).toBe("image/gif");
    expect(imageTypeOfFile("outputs/cell-3-3.webp")).toBe("image/webp");
  });

  it("are exported with their own type to a notebook and to HTML", async () => {
    const dir = join(tempDir(), "abcd2346");
    const j = Journal.create(dir, header());
    j.append({ type: "cell", turn: 1, callId: "a", code: "look('photo.jpg')" });
    const file = j.writeOutputFile("cell-1-0.jpg", JPEG);
    j.append({
      type: "cell_output",
      turn: 1,
      callId: "a",
      executionCount: 1,
      status: "ok",
      output: "[look: photo.jpg attached]\n",
      outputChars: 27,
      truncated: false,
      imageFiles: [file],
      durationMs: 3,
    });
    j.close();
    const nb = JSON.parse(await exportSession(dir, "ipynb"));
    const outputs = nb.cells.flatMap(
      (c: { outputs?: { data?: Record<string, unknown> }[] }) => c.outputs ?? [],
    );
    const shown = outputs.find((o: { data?: Record<string, unknown> }) => o.data?.["image/jpeg"]);
    expect(shown?.data?.["image/jpeg"]).toBe(JPEG.toString("base64"));
    expect(await exportSession(dir, "html")).toContain(`data:image/jpeg;base64,${JPEG.toString("base64")}`);
  });
});
