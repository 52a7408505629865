"""Values that cross between kernels (child inputs, submitted results) travel as pickle files.

A 10 MB string handed to a child costs one file write and one read; it never crosses the JSON
protocol and never reaches a prompt. Files are private to the user (0600).
"""

import io
import keyword
import os
import pickle
import tempfile
import types
import uuid

from . import variables

_dir = None


def configure(output_dir):
    global _dir
    _dir = output_dir


def _directory():
    global _dir
    if _dir is None:
        _dir = tempfile.mkdtemp(prefix="relm-handoff-")
    else:
        os.makedirs(_dir, mode=0o700, exist_ok=True)  # --output-dir may not exist yet (cells creates it lazily too)
    return _dir


class _Pickler(pickle.Pickler):
    """Refuses a class or function defined in a cell: pickle saves it as a reference to `__main__`,
    which the kernel that loads the value (a child's, the parent's) does not have, so the value would
    reach it as a load error instead of a value."""

    def reducer_override(self, obj):
        if isinstance(obj, (type, types.FunctionType)) and getattr(obj, "__module__", None) == "__main__":
            raise pickle.PicklingError(
                f"{obj.__qualname__} was defined in a cell, which the other kernel does not have: pass plain "
                f"data (dict, list, str, numbers), or define {obj.__name__} in a module file and import it"
            )
        return NotImplemented


def dump(value, label):
    """Pickles `value` to a new private file and returns its path; TypeError names `label` if it cannot."""
    try:
        buffer = io.BytesIO()
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        data = buffer.getvalue()
    except Exception as e:  # noqa: BLE001 - pickling raises many kinds (TypeError, PicklingError, AttributeError)
        raise TypeError(f"{label} cannot be pickled ({type(e).__name__}: {e})") from None
    path = os.path.join(_directory(), f"handoff-{uuid.uuid4().hex}.pkl")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path


def load(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def pack_variables(values, what="rlm"):
    """Describes and pickles keyword variables for a child agent."""
    packed = []
    try:
        for name, value in values.items():
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
                raise ValueError(f"{what}: {name!r} cannot be a variable name (use an identifier not starting with _)")
            path = dump(value, f"{what}: variable {name!r}")
            packed.append({**variables.describe(name, value), "pickle": path})
    except BaseException:
        discard(packed)  # the caller never sees these paths, so it could not remove them
        raise
    return packed


def discard(packed):
    for item in packed:
        try:
            os.unlink(item["pickle"])
        except OSError:
            pass
