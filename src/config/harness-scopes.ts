// The harness's scopes, most general first (the order entries are rendered in, and skills shadowed in
// reverse). Here, at the bottom, because the host protocol, the terminal UI and learning/ all name them
// while none of those may import the others.
export const SCOPES = ["user", "project", "session"] as const;
export type Scope = (typeof SCOPES)[number];
