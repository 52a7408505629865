"""view, edit and write: reading and changing files the way a careful person would.

Every change goes through a temp file and a rename, keeps the file's encoding, BOM, line endings and
mode, and is reported to the host, which journals it with its diff (`file_edit`). The session's
checkpoint taken before each turn that runs code already holds the files as they were, so /undo puts
back what these functions changed.
"""

import os
import re

from ._text import (
    FILE_CAP,
    OUTPUT_CAP,
    FileTooLarge,
    FileText,
    Shown,
    check_count,
    check_path,
    check_text,
    diff_stats,
    folder_blocker,
    is_binary,
    no_folder_there,
    open_regular,
    public,
    read_file,
    rel,
    report_change,
    unified_diff,
    write_atomic,
)

LINE_CAP = 1000  # chars of one line shown by view() or in an edit's diff; the rest is counted, not shown
SHOWN_DIFF = 3000  # chars of the diff an edit returns


class EditError(ValueError):
    """edit() refused: `old` is missing or matches too many times. The message says where and why."""


@public
def view(path, start=None, end=None):
    """Shows a text file with line numbers: `view("src/app.py")`, `view("src/app.py", 120, 160)`.

    `start` and `end` are 1-based and inclusive; negative counts from the end (`view(p, -20)` is the
    last 20 lines). The result is a str (printable, searchable) capped at about 12 000 chars with a note
    saying how to see the rest; lines over 1000 chars are cut. Raises FileNotFoundError,
    IsADirectoryError (use tree()) or ValueError for a binary file or a bad range.
    """
    ft = read_file(path)
    # Lines end at "\n" only (as edit() and grep count them), not at every character str.splitlines()
    # takes for a line break.
    lines = ft.text.split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    first, last = _range(start, end, total)
    out = []
    size = 0
    shown_last = first - 1
    for n in range(first, last + 1):
        entry = f"{n:>6}\t{_cut(lines[n - 1])}"
        if size + len(entry) + 1 > OUTPUT_CAP and out:
            break
        out.append(entry)
        size += len(entry) + 1
        shown_last = n
    if total == 0:
        out.append(f"[{rel(path)} is empty]")
    elif shown_last < last:
        out.append(
            f"[... lines {shown_last + 1}-{last} of {total} not shown (output cap); "
            f"view({rel(path)!r}, {shown_last + 1}) for more]"
        )
    elif (first, last) != (1, total):
        out.append(f"[lines {first}-{last} of {total}]")
    return Shown("\n".join(out))


def _cut(line):
    """A line (without its ending) cut at LINE_CAP chars, with how many more it has."""
    return line if len(line) <= LINE_CAP else line[:LINE_CAP] + f" [... {len(line) - LINE_CAP} more chars]"


def _range(start, end, total):
    for name, value in (("start", start), ("end", end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"{name} must be an int line number (1-based) or None")
    first = 1 if start is None else (total + start + 1 if start < 0 else start)
    last = total if end is None else (total + end + 1 if end < 0 else min(end, total))
    if start == 0 or end == 0:
        raise ValueError("line numbers start at 1 (negative ones count from the end)")
    first = max(first, 1)
    if total and first > total:
        raise ValueError(f"start={start} is past the end: the file has {total} lines")
    if last < first and total:
        raise ValueError(f"end={end} is before start={start}")
    return first, last


@public
def edit(path, old, new, count=1):
    """Replaces the exact text `old` with `new` in the file at `path`, and returns what changed (a diff).

    `old` must occur at least once and at most `count` times (default 1: exactly once); every
    occurrence is replaced. Include enough surrounding lines to make `old` unique. Whitespace, tabs and
    case matter; "\\n" in `old`/`new` matches a CRLF file's line endings, and the file's encoding, BOM,
    line endings and trailing newline are kept. Raises EditError (a ValueError) when `old` is missing
    (naming the closest line, or a whitespace or line-ending mismatch) or matches more than `count`
    times (saying how many and at which lines); FileNotFoundError for a missing file (use write()).
    """
    check_path(path)
    check_text("old", old)
    check_text("new", new)
    check_count("count", count, "how many occurrences may be replaced")
    if old == "":
        raise ValueError(
            "old is empty: give the exact text to replace (write() creates or overwrites a file)"
        )
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (cwd is {os.getcwd()}); write() creates a file")
    ft = read_file(path)
    old_t, new_t = ft.fit(old), ft.fit(new)
    if old_t == new_t:
        raise ValueError("old and new are the same: nothing would change")
    text = ft.text
    starts = _occurrences(text, old_t)
    if not starts:
        raise EditError(_missing(path, ft, old_t))
    where = ", ".join(str(_line_of(text, i)) for i in starts[:20])
    if len(starts) > 20:
        where += f" and {len(starts) - 20} more"
    if len(starts) > count:
        raise EditError(
            f"{rel(path)}: old matches {len(starts)} times (at lines {where}), more than count={count}; "
            f"add surrounding lines to make it unique, or pass count={len(starts)} to replace them all"
        )
    after = text.replace(old_t, new_t)
    write_atomic(path, ft.encode(after))
    diff = unified_diff(path, text, after)
    report_change(path, "edit", diff)
    added, removed = diff_stats(diff)
    head = (
        f"edited {rel(path)}: {len(starts)} replacement{'s' if len(starts) > 1 else ''} "
        f"at line{'s' if len(starts) > 1 else ''} {where} (+{added} -{removed})"
    )
    shown = "\n".join(_cut(line) for line in diff.split("\n"))
    if len(shown) > SHOWN_DIFF:
        shown = shown[:SHOWN_DIFF] + f"[... diff cut at {SHOWN_DIFF} chars]\n"
    return Shown(f"{head}\n{shown}".rstrip("\n"))


def _occurrences(text, old):
    """Starts of the non-overlapping occurrences of `old`, as str.replace would find them."""
    out = []
    i = text.find(old)
    while i != -1:
        out.append(i)
        i = text.find(old, i + len(old))
    return out


def _line_of(text, index):
    return text.count("\n", 0, index) + 1


def _missing(path, ft, old):
    """Why `old` was not found: a line-ending or whitespace mismatch, or the closest line."""
    name = rel(path)
    head = f"{name}: old was not found"
    text = ft.text
    # Line endings: the file mixes them, and the text is there with the other kind.
    if ft.newline == "\n" and "\n" in old:
        lf = old.replace("\r\n", "\n")
        for other, kind, escape in ((lf.replace("\n", "\r\n"), "CRLF", "\\r\\n"), (lf, "LF", "\\n")):
            if other != old and other in text:
                at = _line_of(text, text.find(other))
                return f"{head} as given, but it is there with {kind} line endings (at line {at}): use {escape} in old"
    lines = text.split("\n")
    want = old.split("\n")
    while want and not want[-1].strip():
        want.pop()
    while want and not want[0].strip():
        want.pop(0)
    if not want:
        return f"{head} (old is only whitespace and it does not occur)"
    # Whitespace: the same lines with other indentation, tabs for spaces, trailing spaces.
    norm_want = [" ".join(w.split()) for w in want]
    norm_lines = [" ".join(line.split()) for line in lines]
    for i in range(len(lines) - len(want) + 1):
        if norm_lines[i] == norm_want[0] and norm_lines[i : i + len(want)] == norm_want:
            for j, w in enumerate(want):
                have = lines[i + j]
                if have != w:
                    hint = _whitespace_hint(have, w)
                    return (
                        f"{head} exactly, but it is at line {i + 1} with different whitespace: line {i + j + 1} "
                        f"is {have!r} where old has {w!r}{hint}. Copy the text exactly (view({name!r}, {i + 1}, {i + len(want)}))"
                    )
            break
    # The closest line to old's first line (or the first that differs, when the first is there).
    probe = want[0]
    for w in want:
        if w not in text:
            probe = w
            break
    n = _closest_line(lines, probe.strip())
    if n:
        return (
            f"{head}. The line {probe.strip()!r} is not in the file; the closest is line {n}: {lines[n - 1]!r}. "
            f"Check it with view({name!r}, {max(1, n - 3)}, {n + 3})"
        )
    return f"{head}, nor anything close to {probe.strip()!r}; grep() or view({name!r}) to find the text"


def _closest_line(lines, probe):
    """1-based number of the line most like `probe`, or None. In a big file only lines sharing one of
    its longer words are compared, so a refusal stays quick."""
    import difflib  # on first use: kernels start without it

    numbered = list(enumerate(lines, 1))
    if len(numbered) > 5000:
        words = sorted(set(re.findall(r"\w{3,}", probe)), key=len, reverse=True)[:3]
        numbered = [(n, line) for n, line in numbered if any(w in line for w in words)][:5000]
    best, score = None, 0.5
    matcher = difflib.SequenceMatcher(b=probe)
    for n, line in numbered:
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() > score and matcher.quick_ratio() > score:
            ratio = matcher.ratio()
            if ratio > score:
                best, score = n, ratio
    return best


def _whitespace_hint(have, want):
    lead_have = have[: len(have) - len(have.lstrip())]
    lead_want = want[: len(want) - len(want.lstrip())]
    if "\t" in lead_have and "\t" not in lead_want:
        return " (the file indents with tabs)"
    if "\t" in lead_want and "\t" not in lead_have:
        return " (the file indents with spaces)"
    if lead_have != lead_want:
        return f" (indentation {len(lead_have)} vs {len(lead_want)} chars)"
    if have.rstrip() == want.rstrip():
        return " (trailing whitespace differs)"
    return " (spacing inside the line differs)"


@public
def write(path, text):
    """Writes `text` to the file at `path`, creating it and any missing parent folders; returns what
    changed: "created PATH (N lines)", "PATH: N lines changed (+a -b)" or "PATH: unchanged".

    An existing file keeps its encoding, BOM and line endings (text with "\\n" is written as CRLF into
    a CRLF file); a new file is UTF-8. Use edit() for a small change to a big file.
    """
    check_path(path)
    check_text("text", text)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path} is a directory")
    blocker = folder_blocker(path)
    if blocker is not None:
        raise no_folder_there(path, blocker)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    before = None
    ft = FileText("")
    if os.path.exists(path):
        try:
            with open_regular(path, FILE_CAP) as f:  # a FIFO, a device: NotAFile, not a wait or a replacement
                data = f.read()
        except FileTooLarge:
            data = b"\0"  # not read: replaced as a binary file is
        if not is_binary(data):
            ft = FileText.decode(data)
            before = ft.text
            text = ft.fit(text)
        else:
            before = ""  # a binary file replaced by text: the diff shows only the new text
    if before == text:
        return Shown(f"{rel(path)}: unchanged")
    write_atomic(path, ft.encode(text))
    diff = unified_diff(path, before, text)
    report_change(path, "create" if before is None else "write", diff)
    n = len(text.splitlines())
    if before is None:
        return Shown(f"created {rel(path)} ({n} line{'' if n == 1 else 's'})")
    added, removed = diff_stats(diff)
    changed = max(added, removed)
    return Shown(
        f"{rel(path)}: {changed} line{'' if changed == 1 else 's'} changed (+{added} -{removed}), {n} lines now"
    )


EXPORTS = {"view": view, "edit": edit, "write": write}
