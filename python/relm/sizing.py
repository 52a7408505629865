"""How many bytes a value would take pickled, estimated without pickling it.

A snapshot skips a variable over its cap; finding that out by pickling an 800 MB array (a copy as large
as the array) or a 20-million-element list (seconds) after every cell is what made cells slow. So the
size is estimated first, in microseconds: exactly for flat buffers (`nbytes`, `len`), from a sample of
the elements for containers, and by a bounded walk for objects with a `__dict__`.

The estimate aims low rather than high: an object that appears many times pickles once and is then
referred to in 2 bytes, so an element sampled twice counts 2 bytes the second time. A value estimated
under the cap may still pickle over it; the snapshot's writer stops at the cap in that case.
"""

import itertools
import sys

SAMPLE = 32  # elements looked at per container
NODES = 256  # values looked at per estimate, nested ones included
DEPTH = 4

_NOT_MEMOISED = (int, float, bool, type(None))


def estimate(value, limit=None):
    """Estimated pickled size of `value` in bytes; may stop early once it is clearly over `limit`."""
    return _Walk(limit).size(value, 0)


class _Walk:
    def __init__(self, limit):
        self.limit = limit
        self.nodes = 0

    def size(self, value, depth):
        self.nodes += 1
        kind = type(value)
        if value is None or kind is bool:
            return 1
        if kind is int:
            return _int_size(value)
        if kind is float:
            return 9
        if kind in (str, bytes, bytearray):
            return len(value) + 5  # UTF-8 has at least one byte per character
        flat = _flat_size(value)
        if flat is not None:
            return flat
        if depth >= DEPTH or self.nodes >= NODES:
            return _shallow(value)
        if kind in (list, tuple, set, frozenset) or isinstance(value, (list, tuple, set, frozenset)):
            return 2 + self._items(value, len(value), depth)
        if isinstance(value, dict):
            return 2 + self._pairs(value, depth)
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict):
            return 20 + len(kind.__qualname__) + self._pairs(attrs, depth)
        return _shallow(value)

    def _items(self, seq, n, depth):
        if n == 0:
            return 0
        if n <= SAMPLE:
            picked = list(seq)
        elif isinstance(seq, (list, tuple)):
            step = n / SAMPLE
            picked = [seq[int(i * step)] for i in range(SAMPLE)]
        else:
            picked = list(itertools.islice(seq, SAMPLE))
        return self._scaled(picked, n, depth)

    def _pairs(self, mapping, depth):
        n = len(mapping)
        if n == 0:
            return 0
        picked = [x for pair in itertools.islice(mapping.items(), SAMPLE // 2) for x in pair]
        return self._scaled(picked, 2 * n, depth)

    def _scaled(self, picked, n, depth):
        """Sizes of the sampled elements, scaled up to `n`. Memoised objects seen twice in the sample
        suggest a few objects shared by many slots: each then counts once, and every other slot 2 bytes."""
        seen = set()
        plain = firsts = repeats = 0
        for item in picked:
            if isinstance(item, _NOT_MEMOISED):
                plain += self.size(item, depth + 1)
            elif id(item) in seen:
                repeats += 1
            else:
                seen.add(id(item))
                firsts += self.size(item, depth + 1)
            if self.limit is not None and plain + firsts > self.limit:
                return plain + firsts  # already over on its own
        if len(picked) >= n:
            return plain + firsts + 2 * repeats
        scale = n / len(picked)
        if repeats == 0:
            return int((plain + firsts) * scale)
        slots = (len(seen) + repeats) * scale
        return int(plain * scale + firsts + (slots - len(seen)) * 2)


def _int_size(v):
    if 0 <= v < 256:
        return 2
    if 0 <= v < 65536:
        return 3
    if -(2**31) <= v < 2**31:
        return 5
    return 2 + (v.bit_length() + 8) // 8


def _flat_size(value):
    """Bytes of a value backed by one buffer (numpy arrays and pandas objects, array.array, tensors)."""
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    if module == "array" and kind.__name__ == "array":
        return value.itemsize * len(value) + 40
    if module.startswith("pandas") and kind.__name__ == "DataFrame":
        try:
            return int(value.memory_usage(index=True, deep=False).sum())
        except Exception:  # noqa: BLE001 - an estimate only; the writer's cap still holds
            return None
    nbytes = getattr(kind, "nbytes", None)
    if nbytes is None:
        return None  # only types that declare nbytes: a __getattr__ must not answer for any object
    try:
        size = value.nbytes
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(size, int):
        return None
    dtype = getattr(value, "dtype", None)
    if getattr(dtype, "hasobject", False):
        # An array of Python objects holds pointers: each element pickles as one object (at least a byte).
        return max(size // 8, 1)
    return size


def _shallow(value):
    try:
        return sys.getsizeof(value)
    except Exception:  # noqa: BLE001
        return 64
