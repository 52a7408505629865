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

/** Polls a yes/no `check` until it holds; whether it did before `timeoutMs` (for expect(...).toBe(true)). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<boolean> {
  return (await poll(async () => ((await check()) ? true : undefined), timeoutMs)) === true;
}

/**
 * Python lines that hold a cell until `path` exists: a cell that must still be running while the test
 * looks (or acts) ends when the test creates the file, not after a sleep that a loaded machine outruns.
 */
export function pythonWaitForFile(path: string): string {
  return `import os as _os, time as _time\nwhile not _os.path.exists(${JSON.stringify(path)}):\n    _time.sleep(0.02)`;
}
