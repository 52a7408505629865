"""Saving the user's variables after a cell, so a session survives its host process.

Each variable is pickled to its own file, `NAME.DIGEST.pkl` (DIGEST: a hash of its content), in the
snapshot directory, next to a manifest listing what was saved and what could not be (with the reason),
which the model is told on resume. Per-variable and total sizes are capped.

What keeps this off the critical path (issue 10):
- A variable over its cap is found by an estimate (relm.sizing), never by pickling it to find out; a
  value the estimate let through is written by a pickler that stops at the cap, never pickled in memory.
- A value already on disk is not written again. An immutable value that is still the same object as at
  the last snapshot costs nothing; a mutable one costs a cheap check first: a hash of its memory for flat
  buffers (numpy arrays, bytearray, array.array), a hash of its pickle stream (computed, not written)
  for anything else. Same digest, same file: kept.
- The runner takes a snapshot while it waits for the next message (the model is thinking) and gives way
  as soon as one arrives (`should_stop`): the round is then dropped (Superseded), the previous snapshot
  stays as it was, and the next round starts over after the next cell. Files the dropped round finished
  stay beside it, unlisted: the next round takes them as they are when its values hash the same, so a
  snapshot larger than one model call's time still gets done, a piece per cell.

Secrets: the host checks every file it has not seen before (listed in the manifest's `unverified`) for
the values it knows to be secret, deletes a file holding one, lists its variable as skipped, and keeps
its digest under `secret`, so an unchanged value holding a secret is not written again. The kernel is
never given the secrets, not even hashed (src/kernel/snapshot-secrets.ts).
"""

import hashlib
import json
import os
import types

from . import sizing, variables
from .snapshot_io import (
    Sink,
    Superseded,
    TooLarge,
    dump,
    open_private,
    pickle_digest,
    raw_buffer,
    raw_digest,
    write_atomic,
)

MANIFEST = "manifest.json"
VERSION = 2
# Below this estimated size a changed value is cheaper to write again than to hash first.
SMALL = 64 << 10

_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), frozenset, range)
_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
_MUTABLE = object()  # stands for a value that must not be remembered by identity

# name -> (value, digest) of immutable values as last saved. The value itself, not its id(): once the
# variable is rebound the old object may be freed and a new one (`del x; x = "..."`, a loop) get its id.
_last = {}
# name -> (value, length, reason) of containers the writer had to stop at the cap: the same object, as
# long, is not pickled up to the cap again after every cell.
_over = {}

__all__ = ["MANIFEST", "Superseded", "read_manifest", "restore", "take"]


def take(directory, namespace, hidden, exported, max_var_bytes, max_total_bytes, should_stop=None):
    """Writes the snapshot and returns its manifest ({"saved", "skipped", "bytes", ...}), or
    {"superseded": True} when `should_stop()` said to give way (nothing of this round is kept)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    work = _Round(directory, read_manifest(directory), max_var_bytes, max_total_bytes, should_stop)
    try:
        for name, value in _candidates(namespace, hidden, exported):
            work.add(name, value)
            work.check()
    except Superseded:
        work.discard()
        return {"superseded": True}
    except BaseException:
        work.discard()
        raise
    return work.finish()


def read_manifest(directory):
    try:
        with open(os.path.join(directory, MANIFEST)) as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def restore(directory, namespace):
    """Loads a snapshot; returns {"restored": [...], "failed": [...], "skipped": [...]}."""
    import pickle

    path = os.path.join(directory, MANIFEST)
    if not os.path.exists(path):
        return {"restored": [], "failed": [], "skipped": []}
    manifest = read_manifest(directory)
    files = manifest.get("files", {})
    restored, failed = [], []
    for name in manifest.get("saved", []):
        try:
            with open(os.path.join(directory, files.get(name, f"{name}.pkl")), "rb") as f:
                namespace[name] = pickle.load(f)
            restored.append(variables.describe(name, namespace[name]))
        except Exception as e:  # noqa: BLE001 - a class that no longer imports, a truncated file...
            failed.append({"name": name, "reason": f"{type(e).__name__}: {e}"})
    return {"restored": restored, "failed": failed, "skipped": manifest.get("skipped", [])}


def _candidates(namespace, hidden, exported):
    for name, value in list(namespace.items()):
        if name.startswith("_") or name in hidden or any(value is e for e in exported):
            continue
        if isinstance(value, types.ModuleType):
            continue  # imports are not state: the model imports again
        yield name, value


def _length(value):
    try:
        return len(value)
    except Exception:  # noqa: BLE001 - not sized: never taken as unchanged
        return None


def _base(name):
    # Variable names can be longer than a file name may be; the manifest maps names to files anyway.
    return name if len(name.encode()) <= 150 else "v" + hashlib.sha1(name.encode()).hexdigest()[:20]


def _file_name(name, digest):
    return f"{_base(name)}.{digest}.pkl"


class _Round:
    def __init__(self, directory, previous, max_var, max_total, should_stop):
        self.dir = directory
        self.prev_files = previous.get("files", {})
        self.prev_unverified = set(previous.get("unverified", []))
        self.prev_secret = previous.get("secret", {})
        self.prev_reasons = {s.get("name"): s.get("reason") for s in previous.get("skipped", [])}
        # Files of a round that gave way (not in the manifest), by variable: worth a hash before writing.
        self.staged = {f.split(".", 1)[0] for f in os.listdir(directory) if f.endswith(".pkl")}
        self.max_var = max_var
        self.max_total = max_total
        self.should_stop = should_stop
        self.saved, self.skipped, self.total = [], [], 0
        self.files, self.digests, self.unverified, self.secret = {}, {}, [], {}
        self.written = []  # a file being written: removed if the round is dropped
        self.immutables = {}  # name -> (value, digest), for _last once the round is kept
        self.over = {}  # for _over, likewise

    def check(self):
        if self.should_stop is not None and self.should_stop():
            raise Superseded()

    def add(self, name, value):
        if isinstance(value, _CODE):
            # Pickled by reference to a module that a new kernel does not have: it would not load.
            self._skip(name, "defined by code: run its definition again")
            return
        immutable = isinstance(value, _IMMUTABLE)
        seen = _last.get(name)
        if immutable and seen is not None and seen[0] is value and self._adopt(name, seen[1], value):
            return
        remembered = value if immutable else _MUTABLE
        limit = min(self.max_var, self.max_total - self.total)
        over = _over.get(name)
        if over is not None and over[0] is value and over[1] == _length(value):
            self.over[name] = over
            self._skip(name, over[2])
            return
        estimate = sizing.estimate(value, limit)
        if estimate > limit:
            self._skip(name, self._too_large(f"about {estimate:,} bytes", limit))
            return
        try:
            digest = self._check_digest(name, value, estimate, limit)
            if digest is not None and self._adopt(name, digest, remembered):
                return
            self._write(name, value, digest, limit, remembered)
        except TooLarge:
            reason = self._too_large(f"over {limit:,} bytes", limit)
            self._skip(name, reason)
            if not immutable and _length(value) is not None:
                self.over[name] = (value, _length(value), reason)
        except Superseded:
            raise
        except OSError as e:  # the disk, not the value: say which
            self._skip(name, f"not written ({e.strerror or type(e).__name__})")
        except Exception as e:  # noqa: BLE001 - every kind of pickling failure is just "not saved"
            self._skip(name, f"cannot be pickled ({type(e).__name__})")

    def _too_large(self, size, limit):
        if limit < self.max_var:
            return f"too large to snapshot ({size}; the snapshot's total cap is {self.max_total:,} bytes)"
        return f"too large to snapshot ({size})"

    def _check_digest(self, name, value, estimate, limit):
        """The value's digest when it is cheap enough to find out before writing; else None."""
        raw = raw_buffer(value)
        if raw is not None:
            return raw_digest(raw, self.should_stop)
        known = name in self.prev_files or name in self.prev_secret or _base(name) in self.staged
        if known and estimate >= SMALL:
            return pickle_digest(value, limit, self.should_stop)
        return None

    def _adopt(self, name, digest, remembered):
        """Takes the value as saved (or as holding a secret) when its digest is already known."""
        if self.prev_secret.get(name) == digest:
            self.secret[name] = digest
            self._skip(name, self.prev_reasons.get(name) or "holds a secret value: not saved")
            self._remember(name, remembered, digest)
            return True
        file = _file_name(name, digest)
        try:
            size = os.path.getsize(os.path.join(self.dir, file))
        except OSError:
            return False
        if self.total + size > self.max_total:
            self._skip(name, self._too_large(f"{size:,} bytes", self.max_total - self.total))
            return True
        self._keep(name, file, digest, size)
        if self.prev_files.get(name) != file or name in self.prev_unverified:
            self.unverified.append(name)
        self._remember(name, remembered, digest)
        return True

    def _write(self, name, value, digest, limit, remembered):
        tmp = os.path.join(self.dir, f"{_base(name)}.pkl.tmp")
        fd = open_private(tmp)
        self.written.append(tmp)
        try:
            sink = Sink(limit, fd, self.should_stop)
            dump(value, sink)
        except BaseException:
            os.close(fd)
            self.discard()
            raise
        os.close(fd)
        if digest is None or raw_buffer(value) is None:
            # Named after what was written: a thread of the user's could have changed it since the check.
            digest = sink.digest()
            if self._adopt(name, digest, remembered):
                os.unlink(tmp)  # small and unchanged after all
                self.written.pop()
                return
        file = _file_name(name, digest)
        os.replace(tmp, os.path.join(self.dir, file))
        self.written.pop()  # complete: kept for the next round even if this one gives way
        self._keep(name, file, digest, sink.size)
        self.unverified.append(name)
        self._remember(name, remembered, digest)

    def _keep(self, name, file, digest, size):
        self.saved.append(name)
        self.files[name] = file
        self.digests[name] = digest
        self.total += size

    def _remember(self, name, value, digest):
        if value is not _MUTABLE:
            self.immutables[name] = (value, digest)

    def _skip(self, name, reason):
        self.skipped.append({"name": name, "reason": reason})

    def discard(self):
        for path in self.written:
            try:
                os.unlink(path)
            except OSError:
                pass
        self.written.clear()

    def finish(self):
        manifest = {
            "version": VERSION,
            "saved": self.saved,
            "skipped": self.skipped,
            "bytes": self.total,
            "files": self.files,
            "digests": self.digests,
            "unverified": self.unverified,
            "secret": self.secret,
        }
        write_atomic(os.path.join(self.dir, MANIFEST), json.dumps(manifest).encode())
        _last.clear()
        _last.update(self.immutables)  # keeps nothing alive that the namespace no longer holds
        _over.clear()
        _over.update(self.over)
        keep = set(self.files.values())
        for stale in os.listdir(self.dir):
            if stale not in keep and (stale.endswith(".pkl") or stale.endswith(".pkl.tmp")):
                try:
                    os.unlink(os.path.join(self.dir, stale))
                except OSError:
                    pass
        return manifest
