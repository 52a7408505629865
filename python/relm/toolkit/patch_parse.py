"""Reading patches: unified diffs (git diff output) and the `*** Begin Patch` format, as file operations
with hunks for relm.toolkit.patch to check and apply."""

import re


class PatchError(ValueError):
    """apply_patch() refused: the message lists every hunk or file that does not apply. Nothing changed."""


class _Hunk:
    def __init__(self, body, line=None, anchors=(), eof=False, no_eol=()):
        self.body = body  # (tag, line without ending): " " context, "-" removed, "+" added
        self.line = line  # 1-based old start from a unified header, if any
        # The `@@ text` lines of the Begin Patch format: lines to find first, in turn (`@@ class A` then
        # `@@ def f():` reaches the f of class A).
        self.anchors = list(anchors)
        self.eof = eof
        # no_eol: the sides ("old", "new") whose last line has no newline ("\ No newline at end of file").
        self.no_eol_old = "old" in no_eol
        self.no_eol_new = "new" in no_eol

    @property
    def old(self):
        """The lines the hunk expects to find."""
        return [t for tag, t in self.body if tag != "+"]

    @property
    def new(self):
        """The lines it leaves."""
        return [t for tag, t in self.body if tag != "-"]

    def replace(self, found):
        """The new lines for `found` (the file's lines where `old` matched): context lines are kept as the
        file has them (they may differ in whitespace from the patch's)."""
        out = []
        it = iter(found)
        for tag, text in self.body:
            if tag == " ":
                out.append(next(it))
            elif tag == "-":
                next(it)
            else:
                out.append(text)
        return out


class _Op:
    def __init__(self, kind, path, hunks=None, content=None, move_to=None, source=None):
        self.kind = kind  # add | delete | update
        self.path = path
        self.hunks = hunks or []
        self.content = content  # an added file's text; "" for a deleted one that must be empty
        self.move_to = move_to
        # An added file's lines of the patch (indices of text.split("\n")): their line endings are its.
        self.source = source
        self.newline = "\n"  # "\r\n" for an added file whose lines the patch gives with CRLF


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _strip_prefix(name):
    name = _git_name(name.split("\t")[0].strip())
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


_C_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}


def _git_name(text):
    """A file name as git writes it: in double quotes, with C escapes and a non-ASCII byte as three octal
    digits ("caf\\303\\251.txt"), when it holds such characters (core.quotePath)."""
    if len(text) < 2 or not text.startswith('"') or not text.endswith('"'):
        return text
    parts = re.split(r"\\([0-7]{3}|.)", text[1:-1])
    out = bytearray()
    for k, part in enumerate(parts):
        if k % 2 == 0:
            out += part.encode("utf-8", "surrogateescape")
        else:
            out += bytes([int(part, 8)]) if part[0] in "01234567" else _C_ESCAPES.get(part, part).encode()
    return out.decode("utf-8", "surrogateescape")


def parse_unified(text):
    lines = text.split("\n")
    ops = []
    i = 0
    git_rename = {}
    # The `diff --git` header being read: an empty file added or deleted has no ---/+++ lines or hunks,
    # only `new file mode` / `deleted file mode`, so it is an operation once the next header comes.
    block = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            _empty_file_op(block, ops)
            block = {"line": line, "kind": None, "files": False}
            git_rename = {}
            i += 1
            continue
        if block is not None and line.startswith(("new file mode ", "deleted file mode ")):
            block["kind"] = "add" if line.startswith("new") else "delete"
        if line.startswith("GIT binary patch") or (
            line.startswith("Binary files ") and line.endswith(" differ")
        ):
            raise PatchError("the patch changes a binary file; apply_patch handles text files only")
        if line.startswith("rename from "):
            git_rename["from"] = _git_name(line[len("rename from ") :])
        elif line.startswith("rename to "):
            git_rename["to"] = _git_name(line[len("rename to ") :])
            if not _content_follows(lines, i + 1, git_rename.get("from")):
                ops.append(_Op("update", git_rename["from"], [], move_to=git_rename["to"]))
                git_rename = {}
                if block is not None:
                    block["files"] = True
        if _starts_file(lines, i):
            if block is not None:
                block["files"] = True
            old_name, new_name = _strip_prefix(line[4:]), _strip_prefix(lines[i + 1][4:])
            i += 2
            first = i
            hunks = []
            while i < len(lines) and lines[i].startswith("@@"):
                hunk, i = _read_unified_hunk(lines, i)
                hunks.append(hunk)
            if old_name is None and new_name is not None:
                content = "\n".join(ln for h in hunks for ln in h.new)
                if hunks and not hunks[-1].no_eol_new and content:
                    content += "\n"
                ops.append(_Op("add", new_name, content=content, source=range(first, i)))
            elif new_name is None and old_name is not None:
                ops.append(_Op("delete", old_name, hunks=hunks))
            elif old_name is not None:
                ops.append(_Op("update", old_name, hunks, move_to=new_name if new_name != old_name else None))
            git_rename = {}
            continue
        i += 1
    _empty_file_op(block, ops)
    return ops


def _empty_file_op(block, ops):
    """The operation of a `diff --git` header that added or deleted an empty file (no ---/+++ lines)."""
    if block is None or block["kind"] is None or block["files"]:
        return
    name = _git_header_name(block["line"][len("diff --git ") :])
    if name is not None:
        # A deletion's content "": the file must be empty (git apply).
        ops.append(_Op(block["kind"], name, content=""))


def _git_header_name(rest):
    """The one name of a `diff --git a/NAME b/NAME` line (both the same: an added or deleted file), quoted
    or not, with or without the a/ b/ prefixes; None when the two names differ."""
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        while end != -1 and rest[end - 1] == "\\":
            end = rest.find('" ', end + 1)
        if end == -1:
            return None
        old, new = rest[: end + 1], rest[end + 2 :]
    else:
        half = (len(rest) - 1) // 2
        old, new = rest[:half], rest[half + 1 :]
        if rest[half : half + 1] != " ":
            return None
    old, new = _strip_prefix(old), _strip_prefix(new)
    return old if old is not None and old == new else None


def _starts_file(lines, i):
    """Whether lines[i] and the next are a file's `--- a/x` and `+++ b/x` header."""
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _content_follows(lines, i, source):
    """After `rename to`: whether ---/+++ lines of the same file follow (a rename with changes); a pure
    rename has none (what follows is another file's diff, or nothing)."""
    while i < len(lines) and lines[i].startswith(
        ("index ", "similarity ", "dissimilarity ", "old mode", "new mode")
    ):
        i += 1
    return i < len(lines) and lines[i].startswith("--- ") and _strip_prefix(lines[i][4:]) == source


def _read_unified_hunk(lines, i):
    """The hunk whose @@ line is lines[i], and the index after it. Its line counts are trusted when the
    lines agree with them (so a removed "-- comment" line, shown as "--- comment", stays in the hunk);
    models often miscount, so otherwise the hunk runs while lines look like hunk lines."""
    m = _HUNK.match(lines[i])
    start = int(m.group(1)) + (m.group(2) == "0") if m else None  # "-5,0": insert after line 5
    counted = _read_body(lines, i + 1, (int(m.group(2) or 1), int(m.group(4) or 1))) if m else None
    body, no_eol, i = counted or _read_body(lines, i + 1, None)
    return _Hunk(body, line=start, no_eol=no_eol), i


# Which side's last line a "\ No newline at end of file" marker is about, by the tag of the line before it.
_NO_EOL = {"-": ("old",), "+": ("new",), " ": ("old", "new")}


def _read_body(lines, i, counts):
    """(body, no-newline sides, next index) of the hunk lines from lines[i]. By the header's `counts`
    (old, new): None when the lines do not fit them (too few, a line that is no hunk line, or more hunk
    lines right after). Without counts: while lines look like hunk lines."""
    body = []
    no_eol = set()
    last = None
    o = n = blank_tail = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\\"):
            no_eol.update(_NO_EOL.get(last, ()))
            i += 1
            continue
        if counts is None and _starts_file(lines, i):
            break  # (an @@ or diff line ends the hunk too: it is no hunk line)
        if counts is not None and o >= counts[0] and n >= counts[1]:
            break
        tag, rest = (line[:1], line[1:]) if line else (" ", "")
        if tag not in " +-":
            if counts is not None:
                return None
            break
        o += tag != "+"
        n += tag != "-"
        if counts is not None and (o > counts[0] or n > counts[1]):
            return None
        body.append((tag, rest))
        blank_tail = blank_tail + 1 if line == "" else 0
        last = tag
        i += 1
    if counts is None:
        del body[len(body) - blank_tail :]  # blank lines after the hunk (end of patch), not context
    elif o < counts[0] or n < counts[1]:
        return None
    elif i < len(lines) and not _starts_file(lines, i):
        nxt = lines[i]
        # More lines that look like the hunk's (not a format-patch signature "-- "): the counts were short.
        if nxt[:1] == " " or (nxt[:1] in ("+", "-") and nxt != "-- "):
            return None
    return body, no_eol, i


def parse_codex(text):
    lines = text.split("\n")
    try:
        i = next(n for n, ln in enumerate(lines) if ln.strip() == "*** Begin Patch") + 1
    except StopIteration:
        raise PatchError("*** Begin Patch not found") from None
    ops = []
    ended = False
    while i < len(lines):
        line = lines[i]
        if line.strip() == "*** End Patch":
            ended = True
            break
        if line.startswith("*** Add File: "):
            path = line[len("*** Add File: ") :].strip()
            i += 1
            first = i
            body = []
            while i < len(lines) and not lines[i].startswith("*** "):
                if not lines[i].startswith("+") and lines[i].strip():
                    raise PatchError(
                        f"*** Add File: {path}: every line must start with '+', not {lines[i][:60]!r}"
                    )
                body.append(lines[i][1:])
                i += 1
            while body and body[-1] == "" and i >= len(lines):
                body.pop()
            content = "\n".join(body) + ("\n" if body else "")
            ops.append(_Op("add", path, content=content, source=range(first, i)))
            continue
        if line.startswith("*** Delete File: "):
            ops.append(_Op("delete", line[len("*** Delete File: ") :].strip()))
            i += 1
            continue
        if line.startswith("*** Update File: "):
            op = _Op("update", line[len("*** Update File: ") :].strip())
            i += 1
            if i < len(lines) and lines[i].startswith("*** Move to: "):
                op.move_to = lines[i][len("*** Move to: ") :].strip()
                i += 1
            i = _read_codex_chunks(lines, i, op)
            ops.append(op)
            continue
        if line.strip():
            raise PatchError(
                f"unexpected line in the patch: {line[:80]!r} (expected *** Add/Update/Delete File: or *** End Patch)"
            )
        i += 1
    if not ended:
        raise PatchError("*** End Patch is missing: the patch may be cut off")
    return ops


def _read_codex_chunks(lines, i, op):
    hunk = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("*** End of File"):
            if hunk is not None:
                hunk.eof = True
            i += 1
            continue
        if line.startswith("*** "):
            break
        if line.startswith("@@"):
            anchor = line[2:].strip()
            if hunk is not None and not hunk.body:
                if anchor:
                    hunk.anchors.append(anchor)
                i += 1
                continue
            hunk = _Hunk([], anchors=[anchor] if anchor else [])
            op.hunks.append(hunk)
            i += 1
            continue
        if hunk is None:
            hunk = _Hunk([])
            op.hunks.append(hunk)
        tag, rest = (line[:1], line[1:]) if line else (" ", "")
        if tag not in " +-":
            raise PatchError(
                f"*** Update File: {op.path}: a line must start with ' ', '+' or '-', not {line[:60]!r}"
            )
        hunk.body.append((tag, rest))
        i += 1
    for h in op.hunks:  # blank lines before the next *** are spacing, not context
        while h.body and h.body[-1] == (" ", "") and not h.eof:
            h.body.pop()
    op.hunks = [h for h in op.hunks if h.body]
    return i
