// Small shared pieces of the learning bench's families: a seeded random source, word lists, CSV text,
// and Python literals. Everything a family generates comes from a seeded source, so a seed names a
// project exactly (the same seed gives the same files, tasks and conventions on every machine).

/** mulberry32: a small, fast, well-mixed 32-bit generator; good enough to vary names and numbers. */
export function rng(seed) {
  let a = hash(String(seed)) >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    /** A whole number in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    shuffle: (list) => {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
    /** `n` distinct items of `list`. */
    sample: (list, n) => r.shuffle(list).slice(0, n),
    /** A child source for a named part, so adding draws in one part does not shift another. */
    fork: (name) => rng(`${seed}/${name}`),
  };
  return r;
}

/** FNV-1a, for turning a seed string into a 32-bit state. */
export function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** File stems for instances' data files: one per instance, distinct within a project. */
export const STEMS = [
  "sales",
  "orders",
  "returns",
  "shipments",
  "invoices",
  "refills",
  "visits",
  "rentals",
  "repairs",
  "bookings",
  "harvest",
  "tickets",
  "payments",
  "deliveries",
  "pickups",
];

export const NAMES = [
  "anchor",
  "bolt",
  "cable",
  "drill",
  "easel",
  "flask",
  "gauge",
  "hinge",
  "ingot",
  "joist",
  "kettle",
  "lathe",
  "mallet",
  "nozzle",
  "oar",
  "pulley",
  "quill",
  "rivet",
  "spindle",
  "trowel",
];

export const REGIONS = ["north", "south", "east", "west", "central", "coast", "valley", "harbor"];
export const CATEGORIES = ["tools", "paint", "garden", "lumber", "plumbing", "lighting", "hardware"];

/** CSV text: a header and rows (arrays of cells), "\n" line ends and a final newline. */
export function csvText(header, rows) {
  return `${[header, ...rows].map((r) => r.join(",")).join("\n")}\n`;
}

/** A Python string literal for any text (a JSON string is one). */
export const py = (text) => JSON.stringify(text);

/** How Python's repr prints a float (shortest round-trip, like JavaScript, but `12.0` for whole numbers). */
export function pyFloat(x) {
  return Number.isInteger(x) ? `${x}.0` : String(x);
}

/** Python that reads a CSV data file into a list of dicts: what any plain solution starts with. */
export const readRows = (path) =>
  `import csv, os\nrows = list(csv.DictReader(open(${py(path)}, newline="")))\n`;

/** Python that writes `expr` (a Python expression of text) to `path`, making its folder. */
export const writeOut = (path, expr) =>
  `os.makedirs(os.path.dirname(${py(path)}) or ".", exist_ok=True)\nopen(${py(path)}, "w").write(${expr})\nprint("wrote", ${py(path)})\n`;

/** Python that runs a project tool (a list of argv words after the interpreter) with extra environment. */
export const runTool = (argv, env = {}) =>
  `import os, subprocess, sys\nsubprocess.run([sys.executable, ${argv.map(py).join(", ")}], check=True, env={**os.environ, ${Object.entries(
    env,
  )
    .map(([k, v]) => `${py(k)}: ${py(v)}`)
    .join(", ")}})\nprint("ran", ${py(argv[0])})\n`;

/** Rows of (name, amount) with distinct names. */
export function amountRows(r, n, lo = 1, hi = 99) {
  return r.sample(NAMES, n).map((name) => [name, r.int(lo, hi)]);
}
