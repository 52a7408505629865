"""apply_patch: unified diffs (git diff output) and the `*** Begin Patch` format, all files or none.

Every hunk of every file is checked against the files first; only when all apply are the new contents
written (temp files beside their targets, then renames), and a failure while renaming puts back what
was already written. Files keep their encoding, BOM and line endings; a file the patch creates gets the
patch's (CRLF when all its added lines have CRLF), as with git apply.
"""

import os

from ._text import (
    FileText,
    Shown,
    cap,
    check_text,
    diff_stats,
    folder_blocker,
    no_folder_there,
    public,
    read_file,
    rel,
    report_change,
    stage,
    unified_diff,
)
from .patch_parse import PatchError, parse_codex, parse_unified


@public
def apply_patch(text):
    """Applies a patch to files under the cwd and returns a summary of what changed.

    Accepts unified diffs (`git diff` / `diff -u` output, with `a/` `b/` prefixes or without; new,
    deleted and renamed files; hunk line counts need not be exact) and the format Codex-trained models
    write:

        *** Begin Patch
        *** Update File: src/app.py
        @@ def main():
        -    return 1
        +    return 2
        *** Add File: notes.txt
        +a new file
        *** Delete File: old.txt
        *** End Patch

    (`*** Move to: NEW` after an Update renames the file). Context lines find where each hunk goes
    (exactly, then ignoring trailing whitespace, then ignoring indentation). All or nothing: when any
    hunk does not apply, PatchError lists every problem and no file is changed.
    """
    check_text("text", text)
    raw = text
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise PatchError("the patch is empty")
    ops = parse_codex(text) if "*** Begin Patch" in text else parse_unified(text)
    if raw != text:
        _crlf_additions(ops, raw.split("\n"))
    if not ops:
        raise PatchError(
            "no file changes found in the patch: give a unified diff (--- a/x, +++ b/x, @@) or *** Begin Patch"
        )
    plan, problems = _plan(ops)
    if problems:
        raise PatchError(
            "the patch does not apply; nothing was changed:\n" + "\n".join(f"- {p}" for p in problems)
        )
    return Shown(cap(_commit(plan)))


def _crlf_additions(ops, raw_lines):
    """Marks the files the patch creates whose added lines all end in CRLF in the patch: they are written
    with CRLF, as git apply writes the patch's lines as they are. (The patch is read with "\n" endings,
    line for line the same as `raw_lines`; a file that exists keeps its own endings.)"""
    for op in ops:
        if op.kind != "add" or op.source is None:
            continue
        added = [raw_lines[k] for k in op.source if raw_lines[k].startswith("+")]
        if added and all(line.endswith("\r") for line in added):
            op.newline = "\r\n"


# ---- checking -----------------------------------------------------------------------------------------


class _State:
    """A file as the patch sees it: its decoded form on disk and its planned content (None: absent)."""

    def __init__(self, path):
        self.path = path
        self.exists = os.path.isfile(path)
        self.ft = read_file(path) if self.exists else None
        self.before = self.ft.text if self.exists else None
        # For a file created here: the mode of the file moved to it.
        self.mode = os.stat(path).st_mode & 0o7777 if self.exists else None
        self.after = self.before


def _plan(ops):
    states = {}
    problems = []
    moves = []

    def state(path):
        key = os.path.normpath(path)
        if key not in states:
            try:
                states[key] = _State(path)
            except (OSError, ValueError) as e:
                problems.append(str(e))
                return None
        return states[key]

    for op in ops:
        if os.path.isabs(op.path) or (op.move_to and os.path.isabs(op.move_to)):
            problems.append(f"{op.path}: absolute paths are refused; paths are relative to the cwd")
            continue
        s = state(op.path)
        if s is None:
            continue
        if op.kind == "add":
            if s.after is not None:
                problems.append(f"{op.path}: cannot add, the file exists (use an update)")
                continue
            blocker = folder_blocker(op.path)
            if blocker is not None:
                problems.append(str(no_folder_there(op.path, blocker)))
                continue
            s.after = op.content
            if op.newline == "\r\n":
                s.ft = FileText("", newline="\r\n")
            continue
        if s.after is None:
            problems.append(f"{op.path}: no such file to {'delete' if op.kind == 'delete' else 'update'}")
            continue
        if op.kind == "delete":
            if op.content == "" and s.after != "":
                problems.append(f"{op.path}: the diff deletes an empty file, but {op.path} is not empty")
                continue
            errs = _check_deletion(op.path, s.after, op.hunks)
            problems.extend(errs)
            if not errs:
                s.after = None
            continue
        result, errs = _apply_hunks(op.path, s.after, op.hunks)
        if errs:
            problems.extend(errs)
            continue
        if op.move_to and os.path.normpath(op.move_to) != os.path.normpath(op.path):
            d = state(op.move_to)
            if d is None:
                continue
            if d.after is not None:
                problems.append(f"{op.move_to}: cannot move {op.path} there, the file exists")
                continue
            blocker = folder_blocker(op.move_to)
            if blocker is not None:
                problems.append(str(no_folder_there(op.move_to, blocker)))
                continue
            d.after = result
            d.ft = d.ft or s.ft
            d.mode = d.mode if d.exists else s.mode
            s.after = None
            moves.append((op.path, op.move_to))
        else:
            s.after = result
    return (states, moves), problems


def _check_deletion(path, text, hunks):
    # A unified diff's deletion lists the lines it removes: the file must be exactly those (as git apply
    # has it). `*** Delete File:` lists none: nothing to check, no reason to split the file into lines.
    if not hunks:
        return []
    left, errs = _apply_hunks(path, text, hunks)
    if errs or not left:
        return errs
    lines = left.splitlines()
    return [
        f"{path}: the deletion removes only part of the file ({len(lines)} more line(s), the first "
        f"{lines[0]!r}); make the diff against the file as it is now, or delete it with *** Delete File:"
    ]


def _apply_hunks(path, text, hunks):
    trailing = text.endswith("\n") or text == ""  # an empty file has no unterminated last line
    lines = (text[:-1] if trailing else text).split("\n") if text else []
    cursor = 0
    problems = []
    for n, h in enumerate(hunks, 1):
        where = f"{path}: hunk {n} of {len(hunks)}"
        start = cursor
        missing = None
        for anchor in h.anchors:
            found = _seek(lines, [anchor], start, None)
            if found is None:
                missing = anchor
                break
            start = found + 1
        if missing is not None:
            problems.append(
                f"{where}: the line after @@ ({missing!r}) is not in the file{_closest(lines, missing)}"
            )
            continue
        if not h.old:
            if h.line is not None:
                at = min(max(h.line - 1, 0), len(lines))
            elif h.anchors:
                at = start
            else:
                at = len(lines)
            lines[at:at] = h.new
            cursor = at + len(h.new)
            if h.no_eol_new and cursor == len(lines):
                trailing = False
            continue
        at = _seek(lines, h.old, start, h.line, h.eof)
        if at is None:
            at = _seek(lines, h.old, 0, h.line, h.eof)  # hunks out of order
        if at is None:
            missing = next(
                (o for o in h.old if o.strip() and not any(o.strip() == x.strip() for x in lines)), h.old[0]
            )
            problems.append(
                f"{where} does not apply: its {len(h.old)} context/removed lines are not in the file "
                f"(e.g. {missing!r}{_closest(lines, missing)})"
            )
            continue
        replaced = h.replace(lines[at : at + len(h.old)])
        lines[at : at + len(h.old)] = replaced
        cursor = at + len(replaced)
        if h.no_eol_new and at + len(h.new) == len(lines):
            trailing = False
        elif h.no_eol_old and not h.no_eol_new and at + len(h.new) == len(lines):
            trailing = True
    if problems:
        return None, problems
    out = "\n".join(lines)
    return (out + "\n" if trailing and lines else out), []


def _seek(lines, want, start, near, eof=False):
    """Index where `want` occurs in `lines` from `start` (the one nearest to the 1-based `near`, else the
    first): exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace."""
    n = len(want)
    for norm in (lambda s: s, str.rstrip, str.strip):
        w = [norm(x) for x in want]
        hits = [i for i in range(start, len(lines) - n + 1) if [norm(x) for x in lines[i : i + n]] == w]
        if eof and hits:
            ends = [i for i in hits if i + n == len(lines)]
            hits = ends or hits
        if hits:
            if near is None:
                return hits[0]
            return min(hits, key=lambda i: abs(i - (near - 1)))
    return None


def _closest(lines, probe):
    import difflib  # on first use: kernels start without it

    stripped = [x.strip() for x in lines]
    close = difflib.get_close_matches(probe.strip(), stripped, n=1, cutoff=0.6)
    if not close:
        return ""
    k = stripped.index(close[0])
    return f" ; closest line {k + 1}: {lines[k]!r}"


# ---- writing ------------------------------------------------------------------------------------------


def _commit(plan):
    states, moves = plan
    changed = [s for s in states.values() if s.after != s.before]
    if not changed:
        return "the patch changes nothing (the files already read that way)"
    staged = []  # (state, temp path)
    try:
        for s in changed:
            if s.after is not None:
                folder = os.path.dirname(os.path.abspath(s.path))
                os.makedirs(folder, exist_ok=True)
                ft = s.ft or FileText("")
                staged.append((s, stage(s.path, ft.encode(s.after), s.mode)))
    except BaseException:
        for _, tmp in staged:
            _unlink(tmp)
        raise
    done = []  # states whose target has been replaced or removed
    originals = {}
    try:
        for s in changed:
            if s.exists:
                with open(s.path, "rb") as f:
                    originals[s.path] = f.read()
        for s, tmp in staged:
            os.replace(tmp, os.path.realpath(s.path))
            done.append(s)
        for s in changed:
            if s.after is None:
                os.unlink(s.path)
                done.append(s)
    except BaseException:
        for s in done:
            if s.path in originals:
                with open(s.path, "wb") as f:
                    f.write(originals[s.path])
            else:
                _unlink(s.path)
        for _, tmp in staged:
            _unlink(tmp)
        raise
    moved_to = {os.path.normpath(b): a for a, b in moves}
    moved_from = {os.path.normpath(a) for a, _ in moves}
    out = []
    for s in changed:
        key = os.path.normpath(s.path)
        if key in moved_from:
            continue
        src = moved_to.get(key)
        # A moved file's diff is against its source's content (its new path had none).
        diff = unified_diff(s.path, s.before if src is None else states[os.path.normpath(src)].before, s.after)
        added, removed = diff_stats(diff)
        if src is not None:
            action, line = "move", f"R {rel(src)} -> {rel(s.path)} (+{added} -{removed})"
        elif s.before is None:
            action, line = "create", f"A {rel(s.path)} (+{added})"
        elif s.after is None:
            action, line = "delete", f"D {rel(s.path)} (-{removed})"
        else:
            action, line = "patch", f"M {rel(s.path)} (+{added} -{removed})"
        report_change(s.path, action, diff, moved_from=src)
        out.append(line)
    return f"applied the patch to {len(out)} file{'' if len(out) == 1 else 's'}:\n" + "\n".join(out)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


EXPORTS = {"apply_patch": apply_patch}
