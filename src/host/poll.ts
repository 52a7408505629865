// Waiting for something another process does (a host answering, a process exiting), where there is no
// event to wait on: look, and look again a little later, until it holds or the time is up.

/**
 * Calls `probe` every `intervalMs` until it gives a value, and returns that value; undefined once
 * `timeoutMs` has passed without one. The probe is always called at least once.
 */
export async function poll<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  intervalMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Polls a yes/no `check` as poll() does; whether it held before `timeoutMs` passed. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs: number,
): Promise<boolean> {
  return (await poll(async () => ((await check()) ? true : undefined), timeoutMs, intervalMs)) === true;
}
