"""Short descriptions of user variables: type, human size and a bounded preview."""

import contextlib
import reprlib
import signal
import threading
import types

PREVIEW_CHARS = 200
DESCRIBE_SECONDS = 1.0  # per variable: a __repr__ that hangs must not hang the host
# per value: pickling or unpickling it (snapshot, restore, a hand-over to a child) runs its own code
VALUE_SECONDS = 5.0

_repr = reprlib.Repr()
_repr.maxstring = PREVIEW_CHARS
_repr.maxother = PREVIEW_CHARS
_repr.maxlong = 60
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxdict = 10


class TooSlow(BaseException):  # not Exception: reprlib (and a value's own code) would swallow those
    pass


def describe(name, value):
    return {"name": name, "type": type(value).__name__, "size": size_of(value), "preview": preview(value)}


@contextlib.contextmanager
def time_limit(seconds):
    """Raises TooSlow in the block once `seconds` have passed (main thread only: elsewhere no limit). A
    timer or SIGALRM handler of the cell's own is put back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def alarm(signum, frame):
        raise TooSlow

    old = signal.signal(signal.SIGALRM, alarm)
    old_delay, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old if old is not None else signal.SIG_DFL)
        if old_delay:
            signal.setitimer(signal.ITIMER_REAL, old_delay)


def describe_guarded(name, value):
    """describe(), given up after DESCRIBE_SECONDS."""
    try:
        with time_limit(DESCRIBE_SECONDS):
            return describe(name, value)
    except TooSlow:
        return _too_slow(name, value)


def _too_slow(name, value):
    return {"name": name, "type": type(value).__name__, "size": "", "preview": "<repr took too long>"}


def size_of(value):
    try:
        if isinstance(value, str):
            return f"{len(value):,} chars"
        if isinstance(value, (bytes, bytearray, memoryview)):
            return f"{len(value):,} bytes"
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple) and not isinstance(value, type):
            return f"{shape} {type(value).__name__}"
        if isinstance(value, (bool, int, float, complex)) or value is None:
            return "scalar"
        if hasattr(type(value), "__len__") and not isinstance(value, type):
            n = len(value)
            return f"{n:,} item" if n == 1 else f"{n:,} items"
    except Exception:
        pass
    return ""


def preview(value):
    try:
        if isinstance(value, (bytes, bytearray)):
            # reprlib would repr the whole buffer first, which for a 20 MB file is 80 MB of text.
            text = repr(value[:PREVIEW_CHARS])
        else:
            text = _repr.repr(value)
    except Exception as e:
        text = f"<repr failed: {type(e).__name__}>"
    text = " ".join(text.split())
    if len(text) > PREVIEW_CHARS:
        text = text[: PREVIEW_CHARS - 1] + "…"
    return text


def user_items(namespace, hidden, exported):
    """(name, value) of the variables the user defined, in definition order: what `variables` lists and
    a snapshot saves.

    `hidden` maps names the kernel put in the namespace to their values: they are skipped while they
    still hold that value, so a user who rebinds one sees it (and gets it back on resume).
    """
    for name, value in list(namespace.items()):
        if name.startswith("_") or (name in hidden and hidden[name] is value):
            continue
        if isinstance(value, types.ModuleType):
            continue  # imports are not state: the model imports again
        if any(value is fn for fn in exported):
            continue
        yield name, value


def user_variables(namespace, hidden, exported):
    """Descriptions of the user's variables (user_items)."""
    out = []
    for name, value in user_items(namespace, hidden, exported):
        try:
            out.append(describe_guarded(name, value))
        except TooSlow:  # the alarm fired just as describe() finished
            out.append(_too_slow(name, value))
    return out
