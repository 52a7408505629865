// Images journaled beside a session (`outputs/cell-N-i.EXT`, written by src/agent/kernel-api/kernel.ts) are
// named by their type: display() output is PNG, look() adds JPEG, GIF and WebP. Readers of the journal
// (resume, exports, the ACP front end) take the type back from the name.

type JournaledImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Image files by extension: the types journaled, pasted into the UI and served to the web page. */
export const IMAGE_TYPES: ReadonlyMap<string, JournaledImageType> = new Map([
  ["png", "image/png"],
  ["jpg", "image/jpeg"],
  ["jpeg", "image/jpeg"],
  ["gif", "image/gif"],
  ["webp", "image/webp"],
]);

export function imageTypeOfFile(file: string): JournaledImageType {
  return IMAGE_TYPES.get(file.slice(file.lastIndexOf(".") + 1).toLowerCase()) ?? "image/png";
}
