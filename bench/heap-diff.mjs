// Compares two V8 heap snapshots (.heapsnapshot, as written by node --heapsnapshot-signal or
// v8.writeHeapSnapshot): live objects grouped by kind and constructor, sorted by how much more memory
// the second holds. A snapshot is taken after a full GC, so what it holds is what is still reachable.
//   node bench/heap-diff.mjs BEFORE.heapsnapshot AFTER.heapsnapshot [rows=20]
import { readFileSync } from "node:fs";

/** Self size and count of the live objects in a snapshot, by "type name". */
export function summarize(path) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(path, "utf8"));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    // Strings and code are grouped by kind only: their names are their contents.
    const name = ["string", "concatenated string", "sliced string", "code", "number"].includes(type)
      ? ""
      : strings[nodes[i + nameAt]];
    const key = `${type} ${name}`.trim().slice(0, 80);
    const size = nodes[i + sizeAt];
    const g = groups.get(key) ?? { count: 0, size: 0 };
    g.count++;
    g.size += size;
    total += size;
    groups.set(key, g);
  }
  return { groups, total };
}

/**
 * Where the growth hangs: every object in `afterPath` that `beforePath` did not have (ids are stable
 * within one process) is followed up its first strong retainer until an object that was there before;
 * sizes are summed by that old object and the last edges of the path.
 */
export function growthByHolder(beforePath, afterPath, rows = 15) {
  const before = JSON.parse(readFileSync(beforePath, "utf8"));
  const old = new Set();
  {
    const f = before.snapshot.meta.node_fields;
    const w = f.length;
    const idAt = f.indexOf("id");
    for (let i = 0; i < before.nodes.length; i += w) old.add(before.nodes[i + idAt]);
  }
  const { snapshot, nodes, edges, strings } = JSON.parse(readFileSync(afterPath, "utf8"));
  const nf = snapshot.meta.node_fields;
  const ef = snapshot.meta.edge_fields;
  const nodeTypes = snapshot.meta.node_types[0];
  const edgeTypes = snapshot.meta.edge_types[0];
  const nw = nf.length;
  const ew = ef.length;
  const [typeAt, nameAt, idAt, sizeAt, countAt] = ["type", "name", "id", "self_size", "edge_count"].map((k) =>
    nf.indexOf(k),
  );
  const [eTypeAt, eNameAt, eToAt] = ["type", "name_or_index", "to_node"].map((k) => ef.indexOf(k));
  const n = nodes.length / nw;
  const retainer = new Int32Array(n).fill(-1);
  const via = new Array(n);
  let e = 0;
  for (let i = 0; i < n; i++) {
    const count = nodes[i * nw + countAt];
    for (let k = 0; k < count; k++, e += ew) {
      const type = edgeTypes[edges[e + eTypeAt]];
      if (type === "weak" || type === "shortcut") continue;
      const to = edges[e + eToAt] / nw;
      if (retainer[to] !== -1) continue;
      retainer[to] = i;
      const name = edges[e + eNameAt];
      via[to] = type === "element" || type === "hidden" ? `[${name}]` : String(strings[name]);
    }
  }
  const label = (i) => `${nodeTypes[nodes[i * nw + typeAt]]} ${strings[nodes[i * nw + nameAt]]}`.slice(0, 60);
  const groups = new Map();
  for (let i = 0; i < n; i++) {
    if (old.has(nodes[i * nw + idAt])) continue;
    const path = [];
    let j = i;
    for (let depth = 0; depth < 40 && j !== -1 && !old.has(nodes[j * nw + idAt]); depth++) {
      path.unshift(via[j]);
      j = retainer[j];
    }
    const key = `${j === -1 ? "(no strong retainer)" : label(j)} → ${path.slice(0, 3).join(".")}`;
    const g = groups.get(key) ?? { size: 0, count: 0 };
    g.size += nodes[i * nw + sizeAt];
    g.count++;
    groups.set(key, g);
  }
  return [...groups.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, rows);
}

export function diff(before, after, rows = 20) {
  const keys = new Set([...before.groups.keys(), ...after.groups.keys()]);
  const changes = [...keys].map((key) => {
    const a = before.groups.get(key) ?? { count: 0, size: 0 };
    const b = after.groups.get(key) ?? { count: 0, size: 0 };
    return { key, count: b.count - a.count, size: b.size - a.size, now: b.size };
  });
  changes.sort((x, y) => y.size - x.size);
  return { total: after.total - before.total, top: changes.slice(0, rows) };
}

export function printDiff(result, label = "") {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`${label}live heap ${result.total >= 0 ? "+" : ""}${kb(result.total)}; largest growth:`);
  for (const c of result.top) {
    if (c.size <= 0) break;
    console.log(
      `  +${kb(c.size).padStart(10)}  ${String(c.count >= 0 ? `+${c.count}` : c.count).padStart(8)} objects  ${c.key}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [before, after, rows] = process.argv.slice(2);
  if (!before || !after) {
    console.log("usage: node bench/heap-diff.mjs BEFORE.heapsnapshot AFTER.heapsnapshot [rows]");
    process.exit(2);
  }
  printDiff(diff(summarize(before), summarize(after), Number(rows ?? 20)));
  console.log("new objects by the old object that holds them (and the first edges below it):");
  for (const [key, g] of growthByHolder(before, after, Number(rows ?? 20))) {
    console.log(`  ${(g.size / 1024).toFixed(1).padStart(8)} KB  ${String(g.count).padStart(6)}  ${key}`);
  }
}
