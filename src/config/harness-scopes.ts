// The harness's scopes, most general first (the order entries are rendered in, and skills shadowed in
// reverse). Here, at the bottom, because the host protocol, the terminal UI and learning/ all name them
// while none of those may import the others.
//
// `probation` holds lessons earlier sessions of a project learnt, carried forward until their verdict
// promotes them to the project scope or retires them (docs/harness.md, "Probation"). relm writes it;
// people and models write the others.
export const SCOPES = ["user", "project", "probation", "session"] as const;
export type Scope = (typeof SCOPES)[number];

/** The scopes refinements, `relm harness add|import`, `save_skill` and the kernel's calls write to. */
export const WRITABLE_SCOPES = ["user", "project", "session"] as const;
export type WritableScope = (typeof WRITABLE_SCOPES)[number];

export function isWritableScope(value: unknown): value is WritableScope {
  return typeof value === "string" && (WRITABLE_SCOPES as readonly string[]).includes(value);
}
