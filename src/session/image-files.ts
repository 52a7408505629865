// Images journaled beside a session (`outputs/cell-N-i.EXT`, written by src/agent/kernel-api/kernel.ts) are
// named by their type: display() output is PNG, look() adds JPEG, GIF and WebP. Readers of the journal
// (resume, exports, the ACP front end) take the type back from the name.

type JournaledImageType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export function imageTypeOfFile(file: string): JournaledImageType {
  const ext = file.slice(file.lastIndexOf(".") + 1).toLowerCase();
  if (ext === "jpg" || ext === "jpeg") return "image/jpeg";
  if (ext === "gif") return "image/gif";
  if (ext === "webp") return "image/webp";
  return "image/png";
}
