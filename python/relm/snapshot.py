"""Saving the user's variables after a cell, so a session survives its host process.

Each variable is pickled to its own file (`NAME.pkl`) in the snapshot directory, next to a manifest
listing what was saved and what could not be (with the reason), which the model is told on resume.
A variable that is immutable and still the same object as at the last snapshot is not pickled again,
so a 20 MB input costs one write, not one per cell. Per-variable and total sizes are capped.
"""

import json
import os
import pickle
import types

from . import variables

_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), frozenset, range)
MANIFEST = "manifest.json"

# name -> (value, file) of immutable values saved last time. The value itself, not its id(): once the
# variable is rebound the old object may be freed and a new one (`del x; x = "..."`, a loop) get its id.
_last = {}


def _unchanged(name, value, directory):
    seen = _last.get(name)
    return (
        seen is not None
        and seen[0] is value
        and isinstance(value, _IMMUTABLE)
        and os.path.exists(os.path.join(directory, seen[1]))
    )


_CODE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)


def _candidates(namespace, hidden, exported):
    for name, value in list(namespace.items()):
        if name.startswith("_") or name in hidden or any(value is e for e in exported):
            continue
        if isinstance(value, types.ModuleType):
            continue  # imports are not state: the model imports again
        yield name, value


def take(directory, namespace, hidden, exported, max_var_bytes, max_total_bytes):
    """Writes the snapshot; returns {"saved": [...], "skipped": [{"name", "reason"}], "bytes": n}."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    saved, skipped, total = [], [], 0
    keep = {MANIFEST}
    for name, value in _candidates(namespace, hidden, exported):
        file = f"{name}.pkl"
        if isinstance(value, _CODE):
            # Pickled by reference to a module that a new kernel does not have: it would not load.
            skipped.append({"name": name, "reason": "defined by code: run its definition again"})
            continue
        if _unchanged(name, value, directory):
            saved.append(name)
            keep.add(file)
            total += os.path.getsize(os.path.join(directory, file))
            continue
        try:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001 - every kind of pickling failure is just "not saved"
            skipped.append({"name": name, "reason": f"cannot be pickled ({type(e).__name__})"})
            continue
        if len(data) > max_var_bytes or total + len(data) > max_total_bytes:
            skipped.append({"name": name, "reason": f"too large to snapshot ({len(data):,} bytes)"})
            continue
        _write(os.path.join(directory, file), data)
        keep.add(file)
        total += len(data)
        saved.append(name)
        if isinstance(value, _IMMUTABLE):
            _last[name] = (value, file)
        else:
            _last.pop(name, None)
    current = set(saved)
    for name in [n for n in _last if n not in current]:
        del _last[name]  # keep nothing alive that the namespace no longer holds
    for stale in os.listdir(directory):
        if stale not in keep and stale.endswith(".pkl"):
            os.unlink(os.path.join(directory, stale))
    manifest = {"saved": saved, "skipped": skipped, "bytes": total}
    _write(os.path.join(directory, MANIFEST), json.dumps(manifest).encode())
    return manifest


def restore(directory, namespace):
    """Loads a snapshot; returns {"restored": [...], "failed": [...], "skipped": [...]}."""
    path = os.path.join(directory, MANIFEST)
    if not os.path.exists(path):
        return {"restored": [], "failed": [], "skipped": []}
    with open(path) as f:
        manifest = json.load(f)
    restored, failed = [], []
    for name in manifest.get("saved", []):
        try:
            with open(os.path.join(directory, f"{name}.pkl"), "rb") as f:
                namespace[name] = pickle.load(f)
            restored.append(variables.describe(name, namespace[name]))
        except Exception as e:  # noqa: BLE001 - a class that no longer imports, a truncated file...
            failed.append({"name": name, "reason": f"{type(e).__name__}: {e}"})
    return {"restored": restored, "failed": failed, "skipped": manifest.get("skipped", [])}


def _write(path, data):
    tmp = f"{path}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
