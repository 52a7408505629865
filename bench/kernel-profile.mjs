// Where a kernel's main thread spends a cell `x = 1` (issue 24, goal 3): cProfile switched on inside a
// real kernel (started from TREE's dist/) for 5,000 cells sent by the host, then its stats printed.
//   node bench/kernel-profile.mjs [TREE]
// Wall time in `posix.write` and `SimpleQueue.get` is the wait for the host (and, on a loaded machine,
// for a core), not work.
const tree = process.argv[2] ?? new URL("..", import.meta.url).pathname;
const { startKernel } = await import(`${tree}/dist/kernel/index.js`);
const k = await startKernel({ cwd: "/tmp" });
for (let i = 0; i < 200; i++) await k.execute("x = 1");
await k.execute("import cProfile as _cp, pstats as _ps, io as _io\n_p = _cp.Profile()\n_p.enable()");
const t = performance.now();
for (let i = 0; i < 5000; i++) await k.execute("x = 1");
console.log("mean ms", ((performance.now() - t) / 5000).toFixed(3));
const r = await k.execute(
  "_p.disable()\n_s = _io.StringIO()\n_ps.Stats(_p, stream=_s).sort_stats('tottime').print_stats(35)\nprint(_s.getvalue())",
);
console.log(r.output.slice(0, 9000));
await k.shutdown();
