"""The snapshot's writing side: pickling into a file (or only a hash) with a size cap, in pieces that
let a waiting message interrupt the work, and the content digests that tell an unchanged value.

Nothing here holds a whole pickle in memory: the pickler hands over frames of about 64 KB, and a large
buffer (a numpy array's data) as a view that is written out in 1 MB pieces.
"""

import contextlib
import hashlib
import os
import pickle

from .protocol import write_all

CHUNK = 1 << 20


class Superseded(Exception):
    """A message for the kernel arrived: the snapshot gives way (see snapshot.take)."""


class TooLarge(Exception):
    """The pickle grew past its cap."""


def hasher():
    return hashlib.blake2b(digest_size=16)


class Sink:
    """A file-like object for pickle.Pickler: counts, hashes and (with `fd`) writes what it is given."""

    def __init__(self, limit, fd=None, should_stop=None):
        self.limit = limit
        self.fd = fd
        self.should_stop = should_stop
        self.size = 0
        self.hash = hasher()

    def write(self, data):
        view = data.raw() if isinstance(data, pickle.PickleBuffer) else memoryview(data)
        if view.ndim != 1 or view.itemsize != 1:
            view = view.cast("B")
        n = view.nbytes
        self.size += n
        if self.size > self.limit:
            raise TooLarge()
        for start in range(0, n, CHUNK):
            if self.should_stop is not None and self.should_stop():
                raise Superseded()
            piece = view[start : start + CHUNK]
            self.hash.update(piece)
            if self.fd is not None:
                write_all(self.fd, piece)
        return n

    def digest(self):
        return self.hash.hexdigest()


def dump(value, sink):
    pickle.Pickler(sink, protocol=pickle.HIGHEST_PROTOCOL).dump(value)


def dump_file(path, value, limit, should_stop=None):
    """Pickles `value` into a new private file at `path`; returns the Sink (size, digest). Raises TooLarge
    past `limit`, Superseded when `should_stop()` says so: then nothing is left at `path`."""
    fd = open_private(path)
    try:
        sink = Sink(limit, fd, should_stop)
        dump(value, sink)
    except BaseException:
        # Nothing left at `path`; a clean-up that fails must not hide why (Superseded, TooLarge, ...).
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    finally:
        os.close(fd)
    return sink


def file_name(base, digest):
    """A value's file in the snapshot directory, NAME.DIGEST.pkl, whoever writes it (relm.bigvars too)."""
    return f"{base}.{digest}.pkl"


def pickle_digest(value, limit, should_stop):
    """Digest of `value`'s pickle, computed without keeping or writing it; raises TooLarge past `limit`."""
    sink = Sink(limit, None, should_stop)
    dump(value, sink)
    return sink.digest()


def raw_buffer(value):
    """(description, bytes view) of a value whose pickle follows from its raw memory, else None.

    Hashing the memory is the cheap check for these: no pickling, no copy, and hashlib releases the GIL.
    """
    kind = type(value)
    if kind is bytearray:
        return "bytearray", memoryview(value)
    module = getattr(kind, "__module__", "")
    if module == "array" and kind.__name__ == "array":
        return f"array.{value.typecode}", memoryview(value).cast("B")
    if module == "numpy" and kind.__name__ == "ndarray":
        dtype = value.dtype
        if dtype.hasobject:
            return None
        flags = value.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            return None
        order = "C" if flags.c_contiguous else "F"
        return f"ndarray|{dtype!r}|{value.shape}|{order}", pickle.PickleBuffer(value).raw()
    return None


def raw_digest(described, should_stop):
    what, view = described
    sink = Sink(view.nbytes, None, should_stop)  # hashes it in CHUNKs, giving way between them
    sink.hash.update(b"raw\0" + what.encode() + b"\0")
    sink.write(view)
    return sink.digest()


def open_private(path):
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)


def write_atomic(path, data):
    tmp = f"{path}.tmp"
    fd = open_private(tmp)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)

