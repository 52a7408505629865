// Handing a listening socket and connections to another process (handoff.ts, stub.ts) needs their
// descriptors; the server (server.ts) reads them too. Its own module, so the server does not import the
// handoff that imports (the type of) the server.

/**
 * The file descriptor behind a listening server or a connection (Unix), to pass to another process;
 * Node keeps it on the handle without a public accessor.
 */
export function fdOf(owner: { _handle?: unknown } | object): number | undefined {
  const fd = (owner as { _handle?: { fd?: unknown } | null })._handle?.fd;
  return typeof fd === "number" && fd >= 0 ? fd : undefined;
}
