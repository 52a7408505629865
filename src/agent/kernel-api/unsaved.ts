// Which variables of a snapshot would not come back if the kernel were released now: the journal's
// `snapshot` event lists every skipped one with the runner's reason (python/relm/snapshot.py), and one of
// those reasons means "saved later" rather than "lost". Shared by the kernel's owner, `relm agents`'
// state file and the status line, so all three say the same.

/** The runner's reason for a large variable its background writer is saving (snapshot.py, _Round._big). */
const SAVED_IN_BACKGROUND = "large: being saved in the background";

export function savedInBackground(reason: string): boolean {
  return reason.startsWith(SAVED_IN_BACKGROUND);
}

/** Names of the skipped variables a kernel release would lose (too large, a secret, defined by code…). */
export function lostOnRelease(skipped: readonly { name: string; reason: string }[]): string[] {
  return skipped.filter((s) => !savedInBackground(s.reason)).map((s) => s.name);
}
