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
import stat
import types

from . import bigvars, sizing, variables
from .snapshot_io import (
    Superseded,
    TooLarge,
    dump_file,
    file_name,
    pickle_digest,
    raw_buffer,
    raw_digest,
    write_atomic,
)

MANIFEST = "manifest.json"
VERSION = 2
# Below this estimated size a changed value is cheaper to write again than to hash first.
SMALL = 64 << 10
# A value whose pickling takes longer is skipped: a __reduce__ or __getstate__ that blocks (on a lock, a
# connection) would otherwise hold the kernel, and the cell waiting behind the snapshot, for ever. Values
# over the per-variable cap are the background writer's (relm.bigvars), so this is ample for the rest.
VALUE_SECONDS = variables.VALUE_SECONDS
SLOW = f"took over {VALUE_SECONDS:g} s to pickle: not saved"
SLOW_LOAD = f"took over {VALUE_SECONDS:g} s to unpickle: not restored"
NOT_A_FILE = "its file is not a regular file (a FIFO, a device): not restored"

_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), frozenset, range)
_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
_MUTABLE = object()  # stands for a value that must not be remembered by identity

# name -> (value, digest) of immutable values as last saved. The value itself, not its id(): once the
# variable is rebound the old object may be freed and a new one (`del x; x = "..."`, a loop) get its id.
_last = {}
# name -> (value, length, reason) of containers the writer had to stop at the cap: the same object, as
# long, is not pickled up to the cap again after every cell.
_over = {}
# name -> value that took over VALUE_SECONDS to pickle: the same object is not tried again.
_slow = {}

__all__ = ["MANIFEST", "Superseded", "read_manifest", "restore", "take"]


def take(
    directory,
    namespace,
    hidden,
    exported,
    max_var_bytes,
    max_total_bytes,
    should_stop=None,
    max_big_bytes=0,
    final=False,
):
    """Writes the snapshot and returns its manifest ({"saved", "skipped", "bytes", ...}), or
    {"superseded": True} when `should_stop()` said to give way (nothing of this round is kept).

    Values over `max_var_bytes` are saved by a forked child (relm.bigvars) up to `max_big_bytes` in all;
    a `final` round (the kernel is about to go) writes what the children have not, itself."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    if max_big_bytes > 0:
        if final:
            bigvars.wait()  # its files are this round's to adopt; what it did not write, this round does
        elif not bigvars.running():
            # First, before anything can make this round give way: with a model that answers at once every
            # round after a cell gives way, and the large values would wait for a quiet moment for ever.
            bigvars.fork_writer(directory, _large_to_write(directory, namespace, hidden, exported, max_var_bytes, max_big_bytes), max_big_bytes)
    work = _Round(directory, read_manifest(directory), max_var_bytes, max_total_bytes, should_stop, max_big_bytes, final)
    try:
        for name, value in variables.user_items(namespace, hidden, exported):
            work.add(name, value)
            work.check()
    except Superseded:
        return {"superseded": True}  # the file it was writing is gone; the ones it finished stay, unlisted
    manifest = work.finish()
    bigvars.fork_writer(directory, work.big_todo, max_big_bytes)
    return manifest


def _large_to_write(directory, namespace, hidden, exported, max_var, max_big):
    """The values over the per-variable cap that no child has written as they are (or wrote a while ago:
    they may have changed in place), up to the cap of large values; for bigvars.fork_writer."""
    items, total = [], 0
    for name, value in variables.user_items(namespace, hidden, exported):
        if isinstance(value, _CODE):
            continue
        estimate = sizing.estimate(value, max_var)
        if estimate <= max_var or total + estimate > max_big:
            continue
        base, length = _base(name), _length(value)
        found = bigvars.adoptable(directory, base, value, length)
        if found is not None and found["age"] <= bigvars.REFRESH:
            continue
        items.append((base, value, length))
        total += estimate
    return items


def _open_regular(path):
    """`path` opened to read, or None when it is no regular file. Without waiting: a cell can write this
    folder, and open() of a FIFO there waits for a writer for ever (the snapshot, or the resume, with it)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    os.set_blocking(fd, True)
    return open(fd, "rb")


def read_manifest(directory):
    try:
        # Not a regular file: no manifest; the next snapshot replaces it.
        f = _open_regular(os.path.join(directory, MANIFEST))
        if f is None:
            return {}
        with f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def restore(directory, namespace):
    """Loads a snapshot; returns {"restored": [...], "failed": [...], "skipped": [...]}."""
    import pickle

    manifest = read_manifest(directory)  # none ({}): nothing to restore
    files = manifest.get("files", {})
    restored, failed = [], []
    for name in manifest.get("saved", []):
        try:
            # Unpickling runs the value's own code (a __reduce__'s callable, a __setstate__): one that
            # blocks would hang the resume for good, as pickling it would a snapshot.
            f = _open_regular(os.path.join(directory, files.get(name, f"{name}.pkl")))
            if f is None:
                failed.append({"name": name, "reason": NOT_A_FILE})
                continue
            with f, variables.time_limit(VALUE_SECONDS):
                value = pickle.load(f)
        except variables.TooSlow:
            failed.append({"name": name, "reason": SLOW_LOAD})
            continue
        except Exception as e:  # noqa: BLE001 - a class that no longer imports, a truncated file...
            failed.append({"name": name, "reason": f"{type(e).__name__}: {e}"})
            continue
        namespace[name] = value
        restored.append(variables.describe_guarded(name, value))  # its __repr__ may block too
    return {"restored": restored, "failed": failed, "skipped": manifest.get("skipped", [])}


def _length(value):
    try:
        return len(value)
    except Exception:  # noqa: BLE001 - not sized: never taken as unchanged
        return None


def _base(name):
    # Variable names can be longer than a file name may be; the manifest maps names to files anyway.
    return name if len(name.encode()) <= 150 else "v" + hashlib.sha1(name.encode()).hexdigest()[:20]


def _failure(e):
    """Why a value was not saved: the disk (say which error), else its pickling, whatever the kind."""
    if isinstance(e, OSError):
        return f"not written ({e.strerror or type(e).__name__})"
    return f"cannot be pickled ({type(e).__name__})"


class _Round:
    def __init__(self, directory, previous, max_var, max_total, should_stop, max_big, final):
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
        self.immutables = {}  # name -> (value, digest), for _last once the round is kept
        self.over = {}  # for _over, likewise
        self.max_big, self.final = max_big, final
        self.big_total = 0  # bytes of big values adopted or being written
        self.big_todo = []  # (base, value, length) for the background writer
        self.big_pending = set()  # bases a writer has yet to finish: their files are not stale
        self.slow = {}  # for _slow, likewise

    def check(self):
        if self.should_stop is not None and self.should_stop():
            raise Superseded()

    def add(self, name, value):
        if _slow.get(name, _MUTABLE) is value:
            self.slow[name] = value
            self._skip(name, SLOW)
            return
        if isinstance(value, _CODE):
            # Pickled by reference to a module that a new kernel does not have: it would not load.
            self._skip(name, "defined by code: run its definition again")
            return
        # An unchanged immutable value is taken as saved before the timer is set (a signal handler and
        # three timer calls, 14 us): no code of the value's runs for it, and most variables are these.
        seen = _last.get(name)
        if seen is not None and seen[0] is value and isinstance(value, _IMMUTABLE) and self._adopt(name, seen[1], value):
            return
        try:
            with variables.time_limit(VALUE_SECONDS):
                self._add(name, value)
        except variables.TooSlow:
            _slow[name] = self.slow[name] = value  # now: a round that gives way later still knows it
            self._skip(name, SLOW)

    def _add(self, name, value):
        immutable = isinstance(value, _IMMUTABLE)
        remembered = value if immutable else _MUTABLE
        limit = min(self.max_var, self.max_total - self.total)
        over = _over.get(name)
        if over is not None and over[0] is value and over[1] == _length(value):
            self.over[name] = over
            if not self._big(name, value, 0):
                self._skip(name, self._big_reason(over[2]))
            return
        estimate = sizing.estimate(value, limit)
        if estimate > limit:
            if not self._big(name, value, estimate):
                self._skip(name, self._big_reason(self._too_large(f"about {estimate:,} bytes", limit)))
            return
        try:
            digest = self._check_digest(name, value, estimate, limit)
            if digest is not None and self._adopt(name, digest, remembered):
                return
            self._write(name, value, digest, limit, remembered)
        except TooLarge:
            reason = self._too_large(f"over {limit:,} bytes", limit)
            if not immutable and _length(value) is not None:
                self.over[name] = (value, _length(value), reason)
            if not self._big(name, value, 0):
                self._skip(name, self._big_reason(reason))
        except Superseded:
            raise
        except Exception as e:  # noqa: BLE001 - every kind of pickling failure is just "not saved"
            self._skip(name, _failure(e))

    def _big(self, name, value, estimate):
        """Takes a value over the per-variable cap as a big one (relm.bigvars): adopted when a child has
        written this very object, else written by the next child (or now, in a final round). False when
        big values are off or over what is left of their cap: then it is skipped."""
        left = self.max_big - self.big_total
        if self.max_big <= 0 or estimate > left:
            return False
        base, length = _base(name), _length(value)
        found = bigvars.adoptable(self.dir, base, value, length)
        if found is not None and (found["age"] <= bigvars.REFRESH or not self.final):
            size = os.path.getsize(os.path.join(self.dir, found["file"]))
            if size > left:
                return False
            self._keep(name, found["file"], found["digest"], size, big=True)
            if found["age"] > bigvars.REFRESH:  # may have changed in place: written again in the background
                self._pending(base, value, length)
            return True
        if not self.final:
            self._pending(base, value, length)
            self.big_total += estimate
            self._skip(name, "large: being saved in the background, in the next snapshot")
            return True
        try:
            file, digest, size = bigvars.write_one(self.dir, base, value, length, left)
        except TooLarge:
            return False
        except Exception as e:  # noqa: BLE001 - every kind of pickling failure is just "not saved"
            self._skip(name, _failure(e))
            return True
        self._keep(name, file, digest, size, big=True)
        return True

    def _pending(self, base, value, length):
        self.big_pending.add(base)
        if not bigvars.writing(base):
            self.big_todo.append((base, value, length))

    def _big_reason(self, reason):
        if self.max_big <= 0:
            return reason
        return f"{reason}; over the cap for large variables ({self.max_big:,} bytes in all, snapshotMaxLargeMB)"

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
        file = file_name(_base(name), digest)
        try:
            size = os.path.getsize(os.path.join(self.dir, file))
        except OSError:
            return False
        if self.total + size > self.max_total:
            self._skip(name, self._too_large(f"{size:,} bytes", self.max_total - self.total))
            return True
        self._keep(name, file, digest, size)
        self._remember(name, remembered, digest)
        return True

    def _write(self, name, value, digest, limit, remembered):
        tmp = os.path.join(self.dir, f"{_base(name)}.pkl.tmp")
        sink = dump_file(tmp, value, limit, self.should_stop)
        if digest is None or raw_buffer(value) is None:
            # Named after what was written: a thread of the user's could have changed it since the check.
            digest = sink.digest()
            if self._adopt(name, digest, remembered):
                os.unlink(tmp)  # small and unchanged after all
                return
        file = file_name(_base(name), digest)
        os.replace(tmp, os.path.join(self.dir, file))  # complete: kept for the next round even if this one gives way
        self._keep(name, file, digest, sink.size, written=True)
        self._remember(name, remembered, digest)

    def _keep(self, name, file, digest, size, big=False, written=False):
        # A big value is listed as saved like any (the host checks new files for secrets), counted apart.
        # The host checks a file it has not seen: one written now, or not as listed (and checked) last time.
        self.saved.append(name)
        self.files[name] = file
        self.digests[name] = digest
        if big:
            self.big_total += size
        else:
            self.total += size
        if written or self.prev_files.get(name) != file or name in self.prev_unverified:
            self.unverified.append(name)

    def _remember(self, name, value, digest):
        if value is not _MUTABLE:
            self.immutables[name] = (value, digest)

    def _skip(self, name, reason):
        self.skipped.append({"name": name, "reason": reason})

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
        # Replaced, not added to: keeps nothing alive that the namespace no longer holds.
        for kept, now in ((_last, self.immutables), (_over, self.over), (_slow, self.slow)):
            kept.clear()
            kept.update(now)
        keep = set(self.files.values())
        bases = {_base(n) for n in self.saved}
        writer = bigvars.running()
        for file in os.listdir(self.dir):
            base = file.split(".", 1)[0]  # a base has no dot: an identifier, or v + hex digits
            if base in self.big_pending:
                continue  # a writer's, finished or not: the next round adopts it
            if file.endswith(".big.json"):
                # The note of a large value that is gone (its whole base: a namespace key may hold a dot).
                stale = file[: -len(".big.json")] not in bases
            elif file.endswith(".bigtmp"):
                stale = not writer
            else:
                stale = file not in keep and (file.endswith(".pkl") or file.endswith(".pkl.tmp"))
            if stale:
                try:
                    os.unlink(os.path.join(self.dir, file))
                except OSError:
                    pass
        return manifest
