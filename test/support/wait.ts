/** Polls `probe` every 25 ms until it gives a value; undefined when `timeoutMs` passes first. */
export async function poll<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  return undefined;
}

/** Like poll(), but a timeout is an error. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const value = await poll(probe, timeoutMs);
  if (value === undefined) throw new Error("timed out waiting");
  return value;
}
