// Cell round trip of two trees interleaved in one process (issue 24, goal 3): a kernel from each tree's
// dist/, blocks of 250 cells alternating between them, 20 blocks each, after 200 warm-up cells.
//   node bench/kernel-roundtrip-pair.mjs BASE_TREE NOW_TREE ["code"]
// Both trees must be built; BASE_TREE e.g. a `git worktree` of the base revision with its node_modules linked.
const [a, b] = process.argv.slice(2);
if (!a || !b) {
  // `npm run bench` runs every file here: without two trees there is nothing to pair.
  console.log("usage: node bench/kernel-roundtrip-pair.mjs BASE_TREE NOW_TREE [code] (two built checkouts)");
  process.exit(0);
}
const code = process.argv[4] ?? "x = 1";
const ks = [];
for (const tree of [a, b]) {
  const { startKernel } = await import(`${tree}/dist/kernel/index.js`);
  ks.push(await startKernel({ cwd: "/tmp" }));
}
const times = [[], []];
for (const k of ks) for (let i = 0; i < 200; i++) await k.execute(code);
for (let round = 0; round < 20; round++) {
  for (const j of round % 2 ? [1, 0] : [0, 1]) {
    for (let i = 0; i < 250; i++) {
      const t = performance.now();
      await ks[j].execute(code);
      times[j].push(performance.now() - t);
    }
  }
}
const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.floor(p * xs.length)];
for (const j of [0, 1])
  console.log(
    j ? "now " : "base",
    "p50",
    q(times[j], 0.5).toFixed(3),
    "p10",
    q(times[j], 0.1).toFixed(3),
    "p90",
    q(times[j], 0.9).toFixed(3),
    "ms n",
    times[j].length,
  );
console.log("ratio p50", (q(times[1], 0.5) / q(times[0], 0.5)).toFixed(2));
for (const k of ks) await k.shutdown();
