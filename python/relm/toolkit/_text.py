"""What the toolkit's modules share: text shown as itself, the output cap, files read and written back
byte for byte (encoding, BOM, line endings), and the host notice of a changed file."""

import os
import re
import stat

# No toolkit function returns more text than this for display; the kernel caps a cell's output
# (20 000 chars by default) and a function's result should leave room for the rest of the cell.
OUTPUT_CAP = 12_000
# A changed file's diff sent to the journal is cut at this size.
DIFF_CAP = 20_000


def public(fn):
    """A toolkit function as the kernel gets it: a misuse (ValueError, TypeError, OSError) is raised
    without the toolkit's own frames, so the model's traceback is its cell and the message."""
    import functools

    @functools.wraps(fn)
    def call(*args, **kwargs):
        __tracebackhide__ = True  # noqa: F841 - IPython shows this frame only as the last one
        try:
            return fn(*args, **kwargs)
        except (ValueError, TypeError, OSError) as error:
            raise error.with_traceback(None) from None

    return call


class Shown(str):
    """A str whose repr is the text itself: as a cell's last expression it reads like printed output,
    and it is still a str (slice it, search it, print it)."""

    def __repr__(self):
        return str(self)

    # IPython's display hook. Each result class defines its own: IPython takes a class's own __repr__
    # before an inherited _repr_pretty_, and prints that repr broken at every str.splitlines() break.
    def _repr_pretty_(self, p, cycle):
        p.text(str(self))


def cap(text, limit=OUTPUT_CAP, hint=""):
    """`text` cut to about `limit` chars at a line break, with a note of what was left out."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    if cut < limit // 2:
        cut = limit
    rest = text[cut:].count("\n")
    note = f"\n[... {len(text) - cut} more chars, {rest} more lines cut at the {limit}-char cap"
    return text[:cut] + note + (f"; {hint}" if hint else "") + "]"


class FileText:
    """A text file decoded so that writing it back gives the same bytes.

    `text` uses "\\n" line endings when the file's are all CRLF (`newline` remembers which), so an
    `old` string written with "\\n" matches. UTF-8 (with or without BOM) is read as such, undecodable
    bytes kept as surrogates; a file whose non-ASCII bytes are none of them UTF-8 is read as latin-1
    (cp1252 and latin-1 files both round-trip byte for byte that way); UTF-16 with a BOM as UTF-16.
    """

    def __init__(self, text, encoding="utf-8", errors="strict", bom=b"", newline="\n"):
        self.text = text
        self.encoding = encoding
        self.errors = errors
        self.bom = bom
        self.newline = newline

    @classmethod
    def decode(cls, data):
        if data.startswith(b"\xef\xbb\xbf"):
            return cls._lines(
                data[3:].decode("utf-8", "surrogateescape"), "utf-8", "surrogateescape", data[:3]
            )
        for bom, enc in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
            if data.startswith(bom):
                try:
                    return cls._lines(data[2:].decode(enc), enc, "strict", bom)
                except UnicodeDecodeError:
                    break
        try:
            return cls._lines(data.decode("utf-8"), "utf-8", "strict", b"")
        except UnicodeDecodeError:
            pass
        text = data.decode("utf-8", "surrogateescape")
        # Any non-ASCII character that decoded properly means UTF-8 with a few stray bytes; none means a
        # single-byte encoding, where latin-1 keeps every byte and shows "é" as "é" for latin-1 files.
        if any(ord(c) > 127 and not 0xDC80 <= ord(c) <= 0xDCFF for c in text):
            return cls._lines(text, "utf-8", "surrogateescape", b"")
        return cls._lines(data.decode("latin-1"), "latin-1", "strict", b"")

    @classmethod
    def _lines(cls, text, encoding, errors, bom):
        crlf = text.count("\r\n")
        if crlf and crlf == text.count("\n"):
            return cls(text.replace("\r\n", "\n"), encoding, errors, bom, "\r\n")
        return cls(text, encoding, errors, bom, "\n")

    def encode(self, text):
        """`text` (with "\\n" endings when the file is CRLF) as the file's bytes; a clear error when the
        file's encoding cannot hold a character of it."""
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            return self.bom + text.encode(self.encoding, self.errors)
        except UnicodeEncodeError as e:
            bad = e.object[e.start : e.end]
            raise ValueError(
                f"the file is {self.encoding}, which cannot hold {bad!r} from the new text; "
                "use characters it can encode (or write() the file anew as UTF-8)"
            ) from None

    def fit(self, text):
        """`text` given by a caller, in this file's line-ending convention: "\\r\\n" made "\\n" in a
        CRLF file (kept as "\\n" by the decoding) and in a file without any CR."""
        if self.newline == "\r\n" or "\r" not in self.text:
            return text.replace("\r\n", "\n")
        return text


def read_file(path):
    """The FileText of an existing regular file; clear errors for what is not one."""
    check_path(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (cwd is {os.getcwd()})")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory; tree({path!r}) lists it")
    with open_regular(path, FILE_CAP) as f:
        data = f.read()
    if is_binary(data):
        raise ValueError(f"{path} looks binary (it has NUL bytes); the toolkit edits text files only")
    return FileText.decode(data)


# What view, edit, write and apply_patch read of one file at most: they load the whole file, and a sparse
# file of terabytes (`truncate -s 1T`) would fill the kernel's memory with zeros, for minutes.
FILE_CAP = 256 << 20


class FileTooLarge(OSError):
    """A file over FILE_CAP: the message says how big and what to do instead."""


class NotAFile(OSError):
    """The path is a FIFO, a device or a socket: reading it could wait for ever (a FIFO nobody writes,
    a terminal) or never end (/dev/zero), so the toolkit does not."""


_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


VIEW_EDIT = ("view, edit and write", "grep() finds lines in it, and Python's open() reads a part")


def open_regular(path, max_bytes=None, reader=VIEW_EDIT):
    """`path` opened to read (binary) when it is a regular file (a link to one followed) of at most
    `max_bytes`; else NotAFile saying what it is, or FileTooLarge, which names `reader`: (who reads the
    file whole, what to do instead). Every reader of the toolkit opens through here: open() of a FIFO
    waits for a writer, for ever (a cell's `os.mkfifo` in the project hung view, grep, glob and tree)."""
    kind = _not_regular(os.stat(path).st_mode)  # before opening: opening a device can do things
    if kind is None:
        # Without waiting, and checked again on what was opened: something else may have been put there.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        st = os.fstat(fd)
        kind = _not_regular(st.st_mode)
        if kind is None and (max_bytes is None or st.st_size <= max_bytes):
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        os.close(fd)
        if kind is None:
            who, instead = reader
            raise FileTooLarge(
                f"{rel(path)} is {st.st_size:,} bytes, more than the {max_bytes:,} {who} read of a file: {instead}"
            )
    raise NotAFile(f"{rel(path)} is {kind}, not a regular file: the toolkit reads only regular files")


def _not_regular(mode):
    return None if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def is_binary(data):
    """Whether a file's bytes are not text: a NUL near the start that is no UTF-16 (with a BOM)."""
    return b"\0" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff"))


def check_path(path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, not {type(path).__name__}")
    if not str(path):
        raise ValueError("path is empty")


def check_text(name, value):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def check_count(name, value, what=""):
    """`value` must be a positive int (True is no count); `what` says in the message what it counts."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        detail = f" ({what})" if what else ""
        raise ValueError(f"{name} must be a positive int{detail}, not {value!r}")


def folder_blocker(path):
    """The file (not a folder) standing where a folder `path` needs would be made, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(folder):
        if os.path.lexists(folder):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def no_folder_there(path, blocker):
    """The error for a `path` that cannot be made: `blocker` is a file."""
    return NotADirectoryError(f"{rel(path)}: {rel(blocker)} is a file, so it cannot hold {rel(path)}")


def write_atomic(path, data):
    """Writes `data` to `path` through a temp file in the same folder and a rename, keeping the mode of
    a file that was there."""
    tmp = stage(path, data)
    os.replace(tmp, os.path.realpath(path))  # through a symlink: the link stays, its target changes


def stage(path, data, mode=None):
    """`data` in a temp file beside `path` (beside the file a symlink points to), with the file's mode
    if it exists, else `mode` (a moved file's), else the default; returns the temp path."""
    import tempfile  # on first use: kernels start without it

    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".relm-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except FileNotFoundError:
            os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def unified_diff(path, before, after):
    """A unified diff of two texts (None for a missing file) as git would label it."""
    import difflib  # on first use: kernels start without it

    name = rel(path)
    before_t, after_t = before or "", after or ""
    # difflib is slow on big inputs: diff only the lines from a little before the first difference to a
    # little after the last (found by comparing the texts, not their lines), and shift the hunks' line
    # numbers by the lines skipped.
    head = _common_prefix(before_t, after_t)
    # The common suffix is the reversed texts' common prefix, short of overlapping the head.
    tail = min(_common_prefix(before_t[::-1], after_t[::-1]), min(len(before_t), len(after_t)) - head)
    start = head
    for _ in range(4):
        start = before_t.rfind("\n", 0, max(start, 0))
        if start == -1:
            break
    start = start + 1  # a line start (0 when fewer than 4 lines come first)
    end_a, end_b = len(before_t) - tail, len(after_t) - tail
    for _ in range(4):
        nxt = before_t.find("\n", end_a)
        if nxt == -1:
            end_a, end_b = len(before_t), len(after_t)
            break
        end_a, end_b = nxt + 1, end_b + (nxt + 1 - end_a)
    skip = before_t.count("\n", 0, start)
    a = [] if before is None else before_t[start:end_a].splitlines(keepends=True)
    b = [] if after is None else after_t[start:end_b].splitlines(keepends=True)
    labels = ("/dev/null" if before is None else f"a/{name}", "/dev/null" if after is None else f"b/{name}")
    if not a or not b or len(a) + len(b) > DIFFLIB_LINES:
        # A file created or deleted, or a region too big for difflib (seconds for 100 000 lines, a
        # minute for millions, of a diff the journal keeps 20 000 chars of): one hunk, computed directly.
        lines = _one_hunk(a, b, *labels)
    else:
        lines = difflib.unified_diff(a, b, *labels, n=3)
    out = []
    for line in lines:
        if skip and line.startswith("@@"):
            line = _HUNK_HEAD.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + skip}", line)
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


# Past this many lines in the changed region (both sides), the diff is one hunk instead of difflib's.
DIFFLIB_LINES = 20_000


def _one_hunk(a, b, label_a, label_b):
    """The lines of a unified diff of `a` to `b` (lists of lines) as one hunk: their common first and
    last lines as context, the rest removed then added. Exact for a file created or deleted (what difflib
    gives too), not minimal for a big rewrite."""
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    m = 0
    while m < min(len(a), len(b)) - k and a[len(a) - 1 - m] == b[len(b) - 1 - m]:
        m += 1
    if k == len(a) == len(b):
        return
    yield f"--- {label_a}\n"
    yield f"+++ {label_b}\n"
    yield f"@@ -{_range(len(a))} +{_range(len(b))} @@\n"
    yield from (" " + line for line in a[:k])
    yield from ("-" + line for line in a[k : len(a) - m])
    yield from ("+" + line for line in b[k : len(b) - m])
    yield from (" " + line for line in a[len(a) - m :])


def _range(length):
    """A whole side's hunk range as difflib writes it: "1" for one line, "1,LEN" else ("0,0" when empty)."""
    return "1" if length == 1 else f"{1 if length else 0},{length}"


def _common_prefix(a, b):
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # the longest k with a[:k] == b[:k]
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


_HUNK_HEAD = re.compile(r"([-+])(\d+)")  # a hunk's line numbers, shifted by the lines not diffed


def diff_stats(diff):
    """(added, removed) lines of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def rel(path):
    """`path` relative to the cwd when it is inside it, with "/"."""
    full = os.path.abspath(path)
    try:
        r = os.path.relpath(full)
    except ValueError:
        return full
    outside = r == os.pardir or r.startswith(os.pardir + os.sep)  # not "..notes.md", a name in the cwd
    return full if outside else r.replace(os.sep, "/")


def report_change(path, action, diff, moved_from=None):
    """Tells the host a file changed (journaled as a `file_edit` event with its diff). Outside a relm
    kernel, or with a host that does not know the call, the change is simply not journaled."""
    from .. import calls, protocol

    if not protocol.connected():
        return
    added, removed = diff_stats(diff)
    text = diff if len(diff) <= DIFF_CAP else diff[:DIFF_CAP] + f"\n[diff cut at {DIFF_CAP} chars]\n"
    params = {"path": rel(path), "action": action, "diff": text, "added": added, "removed": removed}
    if moved_from is not None:
        params["from"] = rel(moved_from)
    try:
        calls.notify("toolkit.file_edit", params)
    except Exception:  # noqa: BLE001 - the edit is done; a lost journal line must not undo it
        pass
