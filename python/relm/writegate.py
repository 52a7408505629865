"""Holds a cell's first write into the work tree until the session's first file checkpoint is taken.

The first checkpoint of a large repository takes seconds (a scan of every file), and it must hold the
files as they were before the first cell. Rather than make that cell wait for it, the host lets the cell
run and hands it a gate: a file that exists while the checkpoint is being taken. An audit hook (PEP 578)
sees every operation that could change the work tree — opening a file there for writing, removing,
renaming, making directories, starting a process (which could do anything) — and waits for the gate
file to go first. A cell that only reads, computes or imports runs at once.

Held only while the cell runs (relm.cells disarms it after), so the snapshot after the cell is not.
Not held: writes by C code that bypasses Python's I/O (an extension calling fopen itself) and by threads
the cell leaves running after it ends. Such a write can reach the first checkpoint (docs/checkpoints.md).
"""

import os
import sys
import time

# Waiting longer than this means the host is stuck: the write goes ahead (the checkpoint may then hold it).
MAX_WAIT = 300.0
POLL = 0.005

# Events whose second argument is a path the operation changes too: the destination (a move or link from
# outside the tree into it changes the tree, and opens no file there for writing).
_TWO_PATH_EVENTS = frozenset(
    (
        "os.rename",
        "os.link",
        "os.symlink",
        "shutil.move",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.unpack_archive",
    )
)
# Events whose first argument is a path that the operation changes (those above among them).
_PATH_EVENTS = _TWO_PATH_EVENTS | frozenset(
    (
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.truncate",
        "os.chmod",
        "os.chown",
        "os.utime",
        "os.chflags",
        "os.setxattr",
        "os.removexattr",
        "shutil.rmtree",
        "shutil.make_archive",
    )
)
# Events that start something the hook cannot follow: always held.
_PROCESS_EVENTS = frozenset(
    (
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "pty.spawn",
        "sqlite3.connect",
        "ctypes.dlopen",
    )
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

_state = {"gate": None, "tree": None, "below": None, "installed": False}


def arm(gate, tree):
    """Holds writes under `tree` while the file `gate` exists (from now until it is gone or disarmed)."""
    if not gate:
        _state["gate"] = None
        return
    _state["tree"] = os.path.realpath(tree) if tree else None
    # What lies below it starts with this (rstrip: a tree of "/" is not looked for under "//").
    _state["below"] = _state["tree"].rstrip(os.sep) + os.sep if tree else None
    _state["gate"] = gate
    if not _state["installed"]:
        sys.addaudithook(_hook)  # for the process's life; a no-op check once disarmed
        _state["installed"] = True


def _hook(event, args):
    gate = _state["gate"]
    if gate is None:
        return
    if event == "open":
        if not _writes(args) or not _in_tree(args[0]):
            return
    elif event in _PATH_EVENTS:
        paths = args[:2] if event in _TWO_PATH_EVENTS else args[:1]
        if paths and not any(_in_tree(path) for path in paths):
            return
    elif event not in _PROCESS_EVENTS:
        return
    _wait(gate)


def _writes(args):
    mode = args[1] if len(args) > 1 else None
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _in_tree(path):
    tree = _state["tree"]
    if tree is None:
        return True
    if isinstance(path, int):
        return True  # a file descriptor: cannot tell where it points
    try:
        path = os.fsdecode(path)
    except TypeError:
        return True
    full = os.path.abspath(path)
    below = _state["below"]
    if full == tree or full.startswith(below):
        return True
    # A path through a symbolic link (a /tmp that is /private/tmp): resolved only when the cheap test fails.
    try:
        full = os.path.realpath(full)
    except (OSError, ValueError):
        return True
    return full == tree or full.startswith(below)


def _wait(gate):
    # Nothing here raises an event the hook holds (os.stat and time.sleep are not among them), so no
    # guard against re-entry is needed, and other threads are held the same way.
    started = time.monotonic()
    while os.path.exists(gate) and time.monotonic() - started < MAX_WAIT:
        time.sleep(POLL)
    _state["gate"] = None  # taken (or given up on): nothing more to hold
