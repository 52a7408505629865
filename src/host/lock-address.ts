// The abstract Unix socket (Linux) a session's host holds as its lock: bound for exactly as long as the
// holder lives, so it also answers "is this session live?" without touching the session's own socket,
// which a connection would wake (an idle stub revives the full host for any client: src/host/stub.ts).
// node:crypto is imported only here, on demand: loading it costs a listing of sessions ~20 ms.

/** The lock's address for session `id` under RELM_HOME `home`; undefined where there are none. */
export async function lockAddress(home: string, id: string): Promise<string | undefined> {
  if (process.platform !== "linux") return undefined;
  const { createHash } = await import("node:crypto");
  return `\0relm-${createHash("sha256").update(home).digest("hex").slice(0, 16)}-${id}`;
}
