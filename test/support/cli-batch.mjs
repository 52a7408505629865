// Runs many command lines of the built program in one process, one after another: what `relm ARGS`
// does after its entry point (dist/cli/relm.cjs hands everything but --version, a bare `relm` at a
// terminal and the lean `relm agents` to dist/cli/app.js's main), with stdout and stderr captured per
// call. A command line that only has to fail costs ~2 ms here instead of a Node start (~150 ms of CPU):
// test/e2e/cli/cli-errors.test.ts checks hundreds of them, and checks a sample through the binary as well.
//
//   node cli-batch.mjs CALLS.json RESULTS.json    (CALLS: string[][]; RESULTS: {code, stdout, stderr}[])
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [callsFile, resultsFile] = process.argv.slice(2);
const root = new URL("../..", import.meta.url);
const { main } = await import(pathToFileURL(join(root.pathname, "dist/cli/app.js")).href);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));

const streams = { stdout: process.stdout, stderr: process.stderr };
const realWrite = { stdout: process.stdout.write, stderr: process.stderr.write };
const results = [];
for (const args of calls) {
  const captured = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"]) {
    streams[name].write = (chunk, encoding, callback) => {
      captured[name] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") done();
      return true;
    };
  }
  let code;
  try {
    code = await main(args);
  } catch (error) {
    // What relm.cjs does with an error that escapes main.
    captured.stderr += `relm: ${error.message}\n`;
    code = 1;
  } finally {
    for (const name of ["stdout", "stderr"]) streams[name].write = realWrite[name];
  }
  results.push({ code, ...captured });
}
writeFileSync(resultsFile, JSON.stringify(results));
// A command that failed may leave a timer or a handle behind; the batch is over.
process.exit(0);
