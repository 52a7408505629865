// What the lean entries (ui-entry.ts, agents-entry.ts, web-entry.ts) do with an error: the same report as
// every command (report-error.ts), loaded only then. The modules are named through variables so that the
// bundler leaves the error path (and its parser-error wording) out of those bundles.
export async function reportEntryError(error: unknown): Promise<number> {
  const modules = ["./report-error.js", "../config/home.js"];
  const [{ reportError }, { relmHomeFrom }] = (await Promise.all(modules.map((m) => import(m)))) as [
    typeof import("./report-error.js"),
    typeof import("../config/home.js"),
  ];
  return reportError(error, process.stderr, relmHomeFrom(process.env));
}
