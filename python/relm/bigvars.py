"""Variables over the snapshot's per-variable cap, saved off the critical path (issue 24, goal 5).

An 800 MB array or a 20-million-element list takes seconds to pickle: the snapshot after a cell skips
it (relm.snapshot), and without more it would be lost when an idle kernel is released. So after a round
that skipped such values the kernel forks: the child, a copy-on-write image of the kernel as it was,
pickles them into the snapshot directory (niced, as NAME.DIGEST.pkl, like any snapshot file) and writes
a note beside each (NAME.big.json: which object of which process it holds, and when), while the kernel
answers the next cell at once. The next snapshot round adopts a file whose note names the same object
(relm.snapshot), so it is listed, checked for secrets by the host, and restored like any other.

A value changed in place (not rebound, same length) is written again once its file is REFRESH old. A
round that must complete (the kernel is being released, or the session ends) waits for a child still
writing, and writes what is left itself. Up to the cap of big variables (snapshotMaxBigMB), in total.
"""

import json
import os
import signal
import time

from .snapshot_io import TooLarge, dump_file, file_name, write_atomic

REFRESH = 60.0
_child = {"pid": None, "bases": frozenset()}


def note_path(directory, base):
    return os.path.join(directory, f"{base}.big.json")


def adoptable(directory, base, value, length):
    """The file a child wrote for this very object (this process, same id and length), with its age; or
    None. A note from an earlier kernel never matches: ids are per process."""
    try:
        with open(note_path(directory, base)) as f:
            note = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict):
        return None
    if note.get("pid") != os.getpid() or note.get("id") != id(value) or note.get("length") != length:
        return None
    file = note.get("file")
    if not isinstance(file, str) or not os.path.exists(os.path.join(directory, file)):
        return None
    return {"file": file, "digest": note.get("digest"), "age": time.time() - note.get("time", 0)}


def running():
    """True while a child is writing (reaped here when it has finished)."""
    pid = _child["pid"]
    if pid is None:
        return False
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        done = pid
    if done:
        _child["pid"] = None
        _child["bases"] = frozenset()
        return False
    return True


def writing(base):
    """True while a child is writing the value of this (file) base name."""
    return running() and base in _child["bases"]


def wait():
    """Waits for a child still writing."""
    while running():
        time.sleep(0.01)


def write_one(directory, base, value, length, limit, owner=None):
    """Pickles `value` to NAME.DIGEST.pkl (stopping at `limit`: TooLarge) and writes its note, naming the
    kernel `owner` (default this process) as the one whose object it is; returns (file, digest, size)."""
    tmp = os.path.join(directory, f"{base}.bigtmp")  # not *.pkl.tmp: a round's clean-up leaves it alone
    sink = dump_file(tmp, value, limit)
    digest = sink.digest()
    file = file_name(base, digest)
    os.replace(tmp, os.path.join(directory, file))
    note = {"pid": owner or os.getpid(), "id": id(value), "length": length, "file": file, "digest": digest, "time": time.time()}
    write_atomic(note_path(directory, base), json.dumps(note).encode())
    return file, digest, sink.size


def fork_writer(directory, items, limit):
    """Starts a child that writes `items` [(base, value, length)] in the background; False when
    one is still running or fork failed (the values stay skipped until a later round)."""
    if running() or not items:
        return False
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        _child["pid"] = pid
        _child["bases"] = frozenset(item[0] for item in items)
        return True
    code = 1
    try:
        # The kernel's interrupts (SIGINT to its group) are for its cell, not for this writer.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            os.nice(10)
        except OSError:
            pass
        left = limit
        for base, value, length in items:
            try:
                _, _, size = write_one(directory, base, value, length, left, owner=parent)
                left -= size
            except TooLarge:
                pass  # over what is left of the cap: stays skipped
        code = 0
    finally:
        os._exit(code)

