// The remote bootstrap: how a kernel starts where relm is not installed. The launcher runs
// `python3 -c BOOTSTRAP`; relm then writes on its stdin a 12-digit length, relm's Python package as a
// zlib-compressed JSON map {module: [source, is_package, file name]}, and one JSON line of settings
// (python/relm/remote.py). BOOTSTRAP reads exactly those bytes (os.read on fd 0, so nothing of the
// protocol after them is buffered away), imports relm from memory through a meta-path finder and hands
// over to relm.remote, which starts the runner on the same stdin/stdout. Nothing is written to the
// remote disk but the kernel's own scratch directory (removed when it ends).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { deflateSync } from "node:zlib";
import { RELM_PYTHON_DIR } from "../paths.js";

/** The `-c` program: small enough for any command line (ssh, srun, kubectl exec). No single quotes. */
export const BOOTSTRAP = `import sys,os,json,zlib,importlib.util as u
def r(n):
 b=b""
 while len(b)<n:
  c=os.read(0,n-len(b))
  if not c:os._exit(3)
  b+=c
 return b
S=json.loads(zlib.decompress(r(int(r(12)))))
class L:
 def find_spec(s,n,p=None,t=None):
  return u.spec_from_loader(n,s,is_package=S[n][1]) if n in S else None
 def create_module(s,p):pass
 def exec_module(s,m):exec(compile(S[m.__name__][0],S[m.__name__][2],"exec"),m.__dict__)
 def get_source(s,n):return S[n][0]
sys.meta_path.insert(0,L())
from relm import remote
remote.main(r)`;

interface BootstrapArchive {
  /** Compressed JSON of relm's Python sources. */
  bytes: Buffer;
  /** sha256 of `bytes`, first 16 hex digits: names this build's package in diagnostics. */
  hash: string;
}

let cached: BootstrapArchive | undefined;

/** relm's Python package, packed once per process (the sources do not change under a running build). */
export function bootstrapArchive(pythonDir: string = RELM_PYTHON_DIR): BootstrapArchive {
  if (cached && pythonDir === RELM_PYTHON_DIR) return cached;
  const modules: Record<string, [string, boolean, string]> = {};
  const root = join(pythonDir, "relm");
  for (const file of pyFiles(root)) {
    const rel = relative(pythonDir, file).split(sep).join("/");
    const isPackage = rel.endsWith("/__init__.py");
    const name = (isPackage ? rel.slice(0, -"/__init__.py".length) : rel.slice(0, -3)).replace(/\//g, ".");
    modules[name] = [readFileSync(file, "utf8"), isPackage, `<relm ${rel}>`];
  }
  const bytes = deflateSync(Buffer.from(JSON.stringify(modules)), { level: 6 });
  const archive = { bytes, hash: createHash("sha256").update(bytes).digest("hex").slice(0, 16) };
  if (pythonDir === RELM_PYTHON_DIR) cached = archive;
  return archive;
}

/** What relm.remote reads after the archive (one JSON line). */
interface RemoteSettings {
  /** Start directory over there (`~` and `~/x` from the remote home); absent: where it started. */
  workdir?: string;
  /** Set in the remote kernel's environment (RELM_KERNEL, PYTHONUNBUFFERED, ...); nothing secret. */
  env: Record<string, string>;
  firstCount: number;
  /** The archive's hash, reported back in the ready message. */
  build: string;
}

/** Everything written on the bootstrap's stdin before the protocol starts. */
export function bootstrapPayload(
  settings: Omit<RemoteSettings, "build">,
  archive = bootstrapArchive(),
): Buffer {
  const head = Buffer.from(String(archive.bytes.length).padStart(12, "0"));
  const line = Buffer.from(`${JSON.stringify({ ...settings, build: archive.hash })}\n`);
  return Buffer.concat([head, archive.bytes, line]);
}

function pyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...pyFiles(full));
    else if (entry.name.endsWith(".py")) out.push(full);
  }
  return out.sort();
}
