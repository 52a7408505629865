"""The JSON-lines channel to the host: one writer shared by all threads."""

import json
import math
import os
import threading

from . import interrupts

_fd = None
_lock = threading.Lock()


def connect(fd):
    global _fd
    _fd = fd


def connected():
    return _fd is not None


def send(msg):
    """Writes one message as a single line. Safe from any thread."""
    if _fd is None:
        raise RuntimeError("not running inside a relm kernel")
    try:
        text = json.dumps(msg, ensure_ascii=False, separators=(",", ":"), default=repr, allow_nan=False)
    except ValueError:
        # NaN/Infinity are not JSON and would make the host's parser reject the line.
        text = json.dumps(_finite(msg), ensure_ascii=False, separators=(",", ":"), default=repr)
    data = (text + "\n").encode("utf-8", "replace")
    # A KeyboardInterrupt in the middle of a large write would leave half a line on the channel and
    # desynchronise the host, so the main thread holds interrupts until the line is out.
    with interrupts.deferred():
        with _lock:
            write_all(_fd, data)


def write_all(fd, data):
    """Writes all of `data` (a pipe or socket may take a part at a time)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _finite(value):
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def read_loop(fd, on_message, on_eof):
    """Reads host messages until EOF; runs on its own thread for the life of the runner."""
    try:
        with os.fdopen(fd, "rb", buffering=1 << 16) as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                on_message(msg)
    finally:
        on_eof()
