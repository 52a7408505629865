"""apply_patch: unified diffs (git diff output) and the `*** Begin Patch` format, all files or none.

Every hunk of every file is checked against the files first; only when all apply are the new contents
written (temp files beside their targets, then renames), and a failure while renaming puts back what
was already written. Files keep their encoding, BOM and line endings.
"""

import difflib
import os
import re

from ._text import FileText, Shown, check_text, diff_stats, read_file, rel, report_change, stage, unified_diff


class PatchError(ValueError):
    """apply_patch() refused: the message lists every hunk or file that does not apply. Nothing changed."""


class _Hunk:
    def __init__(self, body, line=None, anchor=None, eof=False, no_eol_old=False, no_eol_new=False):
        self.body = body  # (tag, line without ending): " " context, "-" removed, "+" added
        self.line = line  # 1-based old start from a unified header, if any
        self.anchor = anchor  # the `@@ text` of the Begin Patch format: a line to find first
        self.eof = eof
        self.no_eol_old = no_eol_old
        self.no_eol_new = no_eol_new

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
    def __init__(self, kind, path, hunks=None, content=None, move_to=None):
        self.kind = kind  # add | delete | update
        self.path = path
        self.hunks = hunks or []
        self.content = content  # an added file's text
        self.move_to = move_to


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
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise PatchError("the patch is empty")
    ops = _parse_codex(text) if "*** Begin Patch" in text else _parse_unified(text)
    if not ops:
        raise PatchError("no file changes found in the patch: give a unified diff (--- a/x, +++ b/x, @@) or *** Begin Patch")
    plan, problems = _plan(ops)
    if problems:
        raise PatchError("the patch does not apply; nothing was changed:\n" + "\n".join(f"- {p}" for p in problems))
    return Shown(_commit(plan))


# ---- parsing -------------------------------------------------------------------------------------------


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _strip_prefix(name):
    name = name.split("\t")[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    if name == "/dev/null":
        return None
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


def _parse_unified(text):
    lines = text.split("\n")
    ops = []
    i = 0
    git_rename = {}
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            git_rename = {}
            i += 1
            continue
        if line.startswith("GIT binary patch") or (line.startswith("Binary files ") and line.endswith(" differ")):
            raise PatchError("the patch changes a binary file; apply_patch handles text files only")
        if line.startswith("rename from "):
            git_rename["from"] = line[len("rename from ") :]
        elif line.startswith("rename to "):
            git_rename["to"] = line[len("rename to ") :]
            if not _content_follows(lines, i + 1, git_rename.get("from")):
                ops.append(_Op("update", git_rename["from"], [], move_to=git_rename["to"]))
                git_rename = {}
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old_name, new_name = _strip_prefix(line[4:]), _strip_prefix(lines[i + 1][4:])
            i += 2
            hunks = []
            while i < len(lines) and lines[i].startswith("@@"):
                hunk, i = _read_unified_hunk(lines, i)
                hunks.append(hunk)
            if old_name is None and new_name is not None:
                content = "\n".join(ln for h in hunks for ln in h.new)
                if hunks and not hunks[-1].no_eol_new and content:
                    content += "\n"
                ops.append(_Op("add", new_name, content=content))
            elif new_name is None and old_name is not None:
                ops.append(_Op("delete", old_name, hunks=hunks))
            elif old_name is not None:
                ops.append(_Op("update", old_name, hunks, move_to=new_name if new_name != old_name else None))
            git_rename = {}
            continue
        i += 1
    return ops


def _content_follows(lines, i, source):
    """After `rename to`: whether ---/+++ lines of the same file follow (a rename with changes); a pure
    rename has none (what follows is another file's diff, or nothing)."""
    while i < len(lines) and lines[i].startswith(("index ", "similarity ", "dissimilarity ", "old mode", "new mode")):
        i += 1
    return i < len(lines) and lines[i].startswith("--- ") and _strip_prefix(lines[i][4:]) == source


def _read_unified_hunk(lines, i):
    m = _HUNK.match(lines[i])
    start = int(m.group(1)) if m else None
    if m and m.group(2) == "0":
        start += 1  # "-5,0": insert after line 5
    i += 1
    body = []
    no_eol_old = no_eol_new = False
    last = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("@@") or line.startswith("diff --git "):
            break
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            break
        if line.startswith("\\"):
            if last == "-":
                no_eol_old = True
            elif last == "+":
                no_eol_new = True
            elif last == " ":
                no_eol_old = no_eol_new = True
            i += 1
            continue
        tag, rest = (line[:1], line[1:]) if line else (" ", "")
        if tag not in " +-":
            break
        body.append((tag, rest, line == ""))
        last = tag
        i += 1
    while body and body[-1][2]:  # blank lines after the hunk (end of patch), not context
        body.pop()
    body = [(tag, rest) for tag, rest, _ in body]
    return _Hunk(body, line=start, no_eol_old=no_eol_old, no_eol_new=no_eol_new), i


def _parse_codex(text):
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
            body = []
            while i < len(lines) and not lines[i].startswith("*** "):
                if not lines[i].startswith("+") and lines[i].strip():
                    raise PatchError(f"*** Add File: {path}: every line must start with '+', not {lines[i][:60]!r}")
                body.append(lines[i][1:])
                i += 1
            while body and body[-1] == "" and i >= len(lines):
                body.pop()
            ops.append(_Op("add", path, content="\n".join(body) + ("\n" if body else "")))
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
            raise PatchError(f"unexpected line in the patch: {line[:80]!r} (expected *** Add/Update/Delete File: or *** End Patch)")
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
            hunk = _Hunk([], anchor=line[2:].strip() or None)
            op.hunks.append(hunk)
            i += 1
            continue
        if hunk is None:
            hunk = _Hunk([])
            op.hunks.append(hunk)
        tag, rest = (line[:1], line[1:]) if line else (" ", "")
        if tag not in " +-":
            raise PatchError(f"*** Update File: {op.path}: a line must start with ' ', '+' or '-', not {line[:60]!r}")
        hunk.body.append((tag, rest))
        i += 1
    for h in op.hunks:  # blank lines before the next *** are spacing, not context
        while h.body and h.body[-1] == (" ", "") and not h.eof:
            h.body.pop()
    op.hunks = [h for h in op.hunks if h.body]
    return i


# ---- checking -----------------------------------------------------------------------------------------


class _State:
    """A file as the patch sees it: its decoded form on disk and its planned content (None: absent)."""

    def __init__(self, path):
        self.path = path
        self.exists = os.path.isfile(path)
        self.ft = None
        self.before = None
        if self.exists:
            self.ft, _ = read_file(path)
            self.before = self.ft.text
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
            s.after = op.content
            continue
        if s.after is None:
            problems.append(f"{op.path}: no such file to {'delete' if op.kind == 'delete' else 'update'}")
            continue
        if op.kind == "delete":
            if op.hunks:  # a unified diff of a deletion: the file must be what it removes
                result, errs = _apply_hunks(op.path, s.after, op.hunks)
                if errs:
                    problems.extend(errs)
                    continue
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
            d.after = result
            d.ft = d.ft or s.ft
            s.after = None
            moves.append((op.path, op.move_to))
        else:
            s.after = result
    return (states, moves), problems


def _apply_hunks(path, text, hunks):
    trailing = text.endswith("\n") or text == ""  # an empty file has no unterminated last line
    lines = (text[:-1] if trailing else text).split("\n") if text else []
    cursor = 0
    problems = []
    for n, h in enumerate(hunks, 1):
        where = f"{path}: hunk {n} of {len(hunks)}"
        start = cursor
        if h.anchor is not None:
            found = _seek(lines, [h.anchor], start, None)
            if found is None:
                problems.append(f"{where}: the line after @@ ({h.anchor!r}) is not in the file{_closest(lines, h.anchor)}")
                continue
            start = found + 1
        if not h.old:
            if h.line is not None:
                at = min(max(h.line - 1, 0), len(lines))
            elif h.anchor is not None:
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
            missing = next((o for o in h.old if o.strip() and not any(o.strip() == x.strip() for x in lines)), h.old[0])
            problems.append(
                f"{where} does not apply: its {len(h.old)} context/removed lines are not in the file "
                f"(e.g. {missing!r}{_closest(lines, missing, ' ; closest line ')})"
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


def _closest(lines, probe, lead=" ; closest line "):
    stripped = [x.strip() for x in lines]
    close = difflib.get_close_matches(probe.strip(), stripped, n=1, cutoff=0.6)
    if not close:
        return ""
    k = stripped.index(close[0])
    return f"{lead}{k + 1}: {lines[k]!r}"


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
                staged.append((s, stage(s.path, ft.encode(s.after))))
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
            os.replace(tmp, s.path)
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
        for s, tmp in staged:
            _unlink(tmp)
        raise
    moved_to = {os.path.normpath(b): a for a, b in moves}
    moved_from = {os.path.normpath(a) for a, _ in moves}
    out = []
    for s in changed:
        key = os.path.normpath(s.path)
        if key in moved_from:
            continue
        diff = unified_diff(s.path, s.before, s.after)
        added, removed = diff_stats(diff)
        if key in moved_to:
            src = moved_to[key]
            src_state = states[os.path.normpath(src)]
            diff = unified_diff(s.path, src_state.before, s.after)
            added, removed = diff_stats(diff)
            report_change(s.path, "move", diff, moved_from=src)
            out.append(f"R {rel(src)} -> {rel(s.path)} (+{added} -{removed})")
        elif s.before is None:
            report_change(s.path, "create", diff)
            out.append(f"A {rel(s.path)} (+{added})")
        elif s.after is None:
            report_change(s.path, "delete", diff)
            out.append(f"D {rel(s.path)} (-{removed})")
        else:
            report_change(s.path, "patch", diff)
            out.append(f"M {rel(s.path)} (+{added} -{removed})")
    return f"applied the patch to {len(out)} file{'' if len(out) == 1 else 's'}:\n" + "\n".join(out)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


EXPORTS = {"apply_patch": apply_patch}
