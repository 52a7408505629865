"""grep, glob and tree: finding code without reading every file, .gitignore respected.

grep uses ripgrep (`rg --json`) when it is on PATH, `git grep` inside a git repository, pure Python
otherwise; all three take Python's regex syntax as far as they share it (a pattern ripgrep refuses,
such as a look-behind, goes to git grep's PCRE or to Python), see the same files (hidden ones included, .git and
ignored ones left out, a file with a NUL byte anywhere skipped) and give the same results in the same
order. Files read as ripgrep reads them: UTF-16 by its byte order mark, a UTF-8 one dropped, a CRLF
line without its \r (git grep, used only without ripgrep, does none of these: docs/toolkit.md).
"""

import glob as _stdlib_glob
import json
import os
import re
import shutil
import subprocess
from collections import namedtuple

from . import ignore
from ._text import FILE_CAP, OUTPUT_CAP, FileTooLarge, Shown, cap, check_count, check_path, check_text
from ._text import open_regular, public

TEXT_CAP = 300  # chars of a matching line kept in a result
COLLECT_LIMIT = 2_000  # matches read from a backend before it is stopped (more when max_results asks)


class Match(namedtuple("Match", "path line text")):
    """One matching line: `path` (relative to the cwd when given relative), 1-based `line`, `text`."""

    __slots__ = ()

    def __repr__(self):
        return f"{self.path}:{self.line}: {self.text}"


class Results(list):
    """A list of results whose repr is one per line, with `note` (set when the list was capped)."""

    note = ""
    backend = ""

    def __repr__(self):
        body = "\n".join(repr(m) if isinstance(m, Match) else str(m) for m in self)
        if not self:
            body = "(no matches)" if self.backend else "(nothing found)"
        if len(body) > OUTPUT_CAP:
            cut = body.rfind("\n", 0, OUTPUT_CAP)
            body = (
                body[: cut if cut > 0 else OUTPUT_CAP]
                + "\n[... more in the list than shown: slice or loop over it]"
            )
        return body + (f"\n[{self.note}]" if self.note else "")

    def _repr_pretty_(self, p, cycle):  # its own, as Shown's (_text.py) says
        p.text(repr(self))


@public
def grep(pattern, path=".", glob=None, ignore_case=False, max_results=100):
    """Searches files under `path` for the regex `pattern` (Python syntax) and returns a list of
    Match(path, line, text), one per matching line, in path order.

    `.gitignore` is honoured (ignored files and folders, .git and binary files are skipped; hidden files
    are searched). `glob` keeps files whose name matches (e.g. "*.py"; with a "/", the path below `path`,
    e.g. "src/**/*.ts"). At most `max_results` matches are returned; the list's `.note` then says how
    many there were. Uses ripgrep, else git grep, else Python (`.backend` says which).
    """
    check_text("pattern", pattern)
    check_path(path)
    if glob is not None:
        check_text("glob", glob)
    check_count("max_results", max_results)
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as e:
        raise ValueError(f"bad regex {pattern!r}: {e}") from None
    path = os.fspath(path)
    if not os.path.exists(path):
        hint = f"; to search only some files, pass glob={path!r}" if _stdlib_glob.has_magic(path) else ""
        raise FileNotFoundError(f"{path}: no such file or folder (cwd is {os.getcwd()}){hint}")
    if not os.path.isdir(path):
        open_regular(path).close()  # a FIFO or a device named outright: NotAFile, not a search that waits
    keep = _glob_filter(glob, path)
    limit = max(COLLECT_LIMIT, max_results + 1)
    found = None
    if os.path.isfile(path):
        # One file named outright is searched whatever .gitignore says, the same way by every backend.
        found, backend = _python(regex, path, keep, limit), "python"
    elif shutil.which("rg"):
        found, backend = _rg(pattern, path, glob, ignore_case, limit), "rg"
    # git grep leaves out an ignored folder even when it is the one named: Python searches it instead.
    # (Asked last: it reads the .gitignore files up to the root, and ripgrep's answer needs none of it.)
    if (
        found is None
        and ignore.repo_root(path) is not None
        and shutil.which("git")
        and not (os.path.isdir(path) and ignore.Cache().dir_ignored(os.path.abspath(path)))
    ):
        found, backend = _git_grep(pattern, path, ignore_case, limit), "git grep"
    if found is None:
        found, backend = _python(regex, path, keep, limit), "python"
    if backend == "rg":
        # ripgrep 13 misses anchored rules ("src/x.py") of a .gitignore above the folder it searches.
        check = ignore.Cache(path if os.path.isdir(path) else None)
        found = [m for m in found if not check.ignored(m.path)]
    absolute = os.path.isabs(path)
    found = [Match(_canon(m.path, absolute), m.line, m.text) for m in found]
    found = [m for m in found if keep(m.path)]
    found.sort(key=lambda m: (_path_key(m.path), m.line))
    out = Results(found[:max_results])
    out.backend = backend
    if len(found) > max_results:
        total = f"more than {limit}" if len(found) >= limit else str(len(found))
        out.note = f"showing {max_results} of {total} matches; narrow the pattern, path or glob, or raise max_results"
    return out


def _canon(path, absolute):
    """One spelling of a path whichever backend found it: absolute when the search path was, else
    relative to the cwd ("a.py", not "../src/a.py" from inside src)."""
    full = os.path.abspath(path)
    return full if absolute else _norm(os.path.relpath(full))


def _path_key(path):
    return [p.encode("utf-8", "surrogateescape") for p in path.split("/")]


def _clip(text):
    text = text.rstrip("\r\n")
    return text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + f" [... {len(text) - TEXT_CAP} more chars]"


def _norm(p):
    return os.path.normpath(p).replace(os.sep, "/")


def _rg(pattern, path, glob, ignore_case, limit):
    args = [
        "rg",
        "--json",
        "--hidden",
        "--no-require-git",
        "--no-config",
        "--no-ignore-dot",
        "--crlf",  # a line's \r is no part of it (`x$` matches "x\r\n"), as Python reads lines
        "--sort",
        "path",
    ]
    args += ["-g", "!.git", "--no-messages"]
    if ignore_case:
        args.append("-i")
    if glob and "/" not in glob:
        args += ["-g", glob]
    args += ["-e", pattern, "--", path]
    found, code = _stream(args, _rg_reader(limit), limit)
    if code not in (0, 1) and not found:
        return None  # a pattern Rust's regex refuses (look-around, back-references): Python does it
    return found


def _rg_reader(limit):
    """Reads `rg --json` lines for _stream. Each file's matches wait for its end message: ripgrep reports
    the lines before a NUL byte it meets past its first block and says so there (binary_offset), where
    the other backends skip the whole file; so does this."""
    pending = []

    def read(raw):
        try:
            msg = json.loads(raw)
        except ValueError:
            return []
        kind = msg.get("type")
        if kind == "match":
            pending.append(_rg_match(msg["data"]))
            if len(pending) < limit:
                return []
            # Enough to stop the search: this file's end (and a NUL in it) is not waited for.
        elif kind == "end":
            if msg["data"].get("binary_offset") is not None:
                pending.clear()
        else:
            return []
        out = pending[:]
        pending.clear()
        return out

    return read


def _rg_match(data):
    name, text = _rg_text(data["path"], "surrogateescape"), _rg_text(data["lines"], "replace")
    return Match(_norm(name), data["line_number"], _clip(text))


def _rg_text(obj, errors):
    """ripgrep's text, or its base64 bytes when they are not UTF-8: decoded as the other backends do, a
    name as the OS does (surrogateescape), a line's text with U+FFFD for what is not UTF-8."""
    if "text" in obj:
        return obj["text"]
    import base64

    return base64.b64decode(obj.get("bytes", "")).decode("utf-8", errors)


def _git_grep(pattern, path, ignore_case, limit):
    args = ["git", "grep", "-z", "-n", "-I", "--no-color", "--untracked", "--exclude-standard", "-P"]
    if ignore_case:
        args.append("-i")
    args += ["-e", pattern, "--", path]
    found, code = _stream(args, _git_reader(), limit)
    if code not in (0, 1) and len(found) < limit:
        return None  # no PCRE in this git, a pattern it refuses, a path outside the repository
    return found


# git grep -I calls a file binary for a NUL in its first 8,000 bytes only (git's own rule).
GIT_BINARY_PROBE = 8000


def _git_reader():
    """Reads `git grep -z` lines for _stream, leaving out the files with a NUL byte past git's probe
    (looked for once per file that matches: the other backends skip such a file whole)."""
    late_nul = {}

    def read(raw):
        parts = raw.rstrip(b"\n").split(b"\0", 2)
        if len(parts) != 3:
            return []
        name = _norm(parts[0].decode("utf-8", "surrogateescape"))
        if name not in late_nul:
            late_nul[name] = _has_nul(name, GIT_BINARY_PROBE)
        if late_nul[name]:
            return []
        line, text = int(parts[1]), parts[2].decode("utf-8", "replace")
        if line == 1:
            text = text.removeprefix("\ufeff")  # a UTF-8 byte order mark, which ripgrep drops
        return [Match(name, line, _clip(text))]

    return read


def _has_nul(path, start):
    """Whether the file holds a NUL byte at offset `start` or later (an unreadable file: no)."""
    try:
        with open_regular(path) as f:
            f.seek(start)
            while block := f.read(1 << 16):
                if b"\0" in block:
                    return True
    except OSError:
        pass
    return False


def _stream(args, read, limit):
    """(matches, exit code) of a search process, its output read as it comes, each line turned by `read`
    into the matches it completes (often none); stopped once `limit` matches are in. ([], None) when it
    cannot be started, or was stopped waiting on a FIFO (then the next backend searches)."""
    import selectors

    try:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    except OSError:
        return [], None
    found, rest = [], b""
    fd = proc.stdout.fileno()
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while len(found) < limit:
                if not sel.select(STALL_CHECK):
                    if _opening_fifo(proc.pid):
                        proc.kill()
                        return [], None
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    found.extend(read(rest) if rest else [])
                    break
                *lines, rest = (rest + chunk).split(b"\n")
                for raw in lines:
                    found.extend(read(raw))
            else:
                proc.kill()
    finally:
        proc.stdout.close()
        code = proc.wait()
    return found, code


# Seconds without output after which a search process is looked at: waiting on a FIFO, it is stopped.
STALL_CHECK = 1.0


def _opening_fifo(pid):
    """Whether a thread of `pid` waits in open() of a FIFO for a writer (Linux): ripgrep and git read a
    .gitignore that is one and wait for ever. Nowhere else is this known: there the search goes on."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/wchan") as f:
                if f.read().strip() in ("wait_for_partner", "fifo_open"):
                    return True
        except OSError:
            pass
    return False


# Python reads each file whole: one over FILE_CAP (a sparse file of terabytes) would fill the kernel's memory.
TOO_LARGE = ("grep()", "read a part of it with Python's open() and search that")


def _python(regex, path, keep, limit):
    found = []
    named = os.path.isfile(path)
    files = [(path, False)] if named else ignore.walk(path)
    for name, is_dir in files:
        if is_dir or not keep(_norm(name)):
            continue
        try:
            with open_regular(name, FILE_CAP, TOO_LARGE) as f:
                data = f.read()
        except FileTooLarge:
            if named:
                raise  # the one file asked for: said, not an empty result
            continue  # in a folder: passed over as an unreadable file is
        except OSError:  # unreadable, or a FIFO or a device: skipped, as ripgrep does
            continue
        text = _decode(data)
        if "\0" in text:
            continue  # binary, as rg and git grep treat it
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the empty string after the last newline is not a line
        for n, line in enumerate(lines, 1):
            line = line.rstrip("\r")
            if regex.search(line):
                found.append(Match(_norm(name), n, _clip(line)))
        if len(found) >= limit:
            break
    return found


def _decode(data):
    """A file's text as ripgrep reads it: UTF-16 by its byte order mark, else UTF-8 without one, with
    U+FFFD for bytes that are not UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    return data.decode("utf-8-sig", "replace")


def _glob_filter(glob, root):
    """A predicate on result paths: the name matches `glob` (no "/"), or the path below `root` does."""
    if not glob:
        return lambda p: True
    by_name = "/" not in glob  # "./*.py" is a path (the top level), not a name
    while glob.startswith("./"):
        glob = glob[2:]  # "./src/*.py": the paths it is matched with have no "./"
    regex = re.compile("^" + ignore.translate(glob.lstrip("/"), braces=True) + "$", re.DOTALL)
    if by_name:
        return lambda p: bool(regex.match(p.rsplit("/", 1)[-1]))
    top = os.path.abspath(root)

    def keep(p):
        return bool(regex.match(_norm(os.path.relpath(os.path.abspath(p), top))))

    return keep


@public
def glob(pattern, path=".", max_results=500):
    """Files and folders matching the glob `pattern` below `path`, .gitignore respected, sorted:
    `glob("**/*.py")` (any depth), `glob("src/*.ts")`, `glob("*.md")` (top level only), `glob("*/")`
    (folders only, each with its "/").

    Hidden files are included; .git and ignored paths are not. At most `max_results` paths; `.note`
    says how many more there were. (The standard library's `glob.glob`/`glob.iglob` are reachable as
    attributes, so code written for the module still runs.)
    """
    check_text("pattern", pattern)
    check_path(path)
    check_count("max_results", max_results)
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise NotADirectoryError(f"{path}: no such folder (cwd is {os.getcwd()})")
    pattern = pattern.replace(os.sep, "/")
    # A trailing "/" means folders only, listed with their "/" (as the shell and glob.glob do).
    folders = pattern.endswith("/") and bool(pattern.strip("/"))
    pattern = pattern.rstrip("/") if folders else pattern
    if pattern.startswith("/"):
        path, pattern = "/", pattern.lstrip("/")
    # The leading parts without wildcards name where to start walking.
    parts = pattern.split("/")
    lead = []
    while len(parts) > 1 and not _stdlib_glob.has_magic(parts[0]):
        lead.append(parts.pop(0))
    start = os.path.join(path, *lead) if lead else path
    rest = "/".join(parts)
    out = Results()
    if not os.path.isdir(start):
        out.note = f"{_norm(start)} is not a folder"
        return out
    regex = re.compile("^" + ignore.translate(rest, braces=True) + "$", re.DOTALL)
    recursive = "**" in rest or "/" in rest
    found = []
    start_shown = _norm(start)
    for name, is_dir in ignore.walk(start, dirs=True, links=True) if recursive else _top(start):
        if folders and not is_dir:
            continue
        below = (
            _norm(os.path.relpath(name, start)) if os.path.isabs(name) else _below(_norm(name), start_shown)
        )
        if regex.match(below):
            found.append(_norm(name) + ("/" if folders else ""))
            if len(found) > max_results * 10 and len(found) > 10_000:
                break
    found.sort(key=_path_key)
    out.extend(found[:max_results])
    if len(found) > max_results:
        # A walk stopped at the cap above has counted only part of the total.
        stopped = len(found) > max_results * 10 and len(found) > 10_000
        total = f"more than {len(found) - 1}" if stopped else len(found)
        out.note = f"showing {max_results} of {total} paths; narrow the pattern or raise max_results"
    return out


def _below(name, start):
    return name[len(start) + 1 :] if start != "." and name.startswith(start + "/") else name


def _top(folder):
    top = os.path.abspath(folder)
    for name, is_dir, _ in ignore.entries(top, ignore.inherited_rules(folder) + ignore._read_rules(top)):
        yield (os.path.join(folder, name) if folder != "." else name), is_dir


for _name in ("glob", "iglob", "escape", "has_magic"):  # code written for the glob module still runs
    setattr(glob, _name, getattr(_stdlib_glob, _name))


@public
def tree(path=".", depth=2, max_entries=400):
    """The folders and files below `path`, `depth` levels deep, .gitignore respected, as indented text.

    Folders come first, each with a trailing "/"; a folder deeper than `depth` shows how many entries it
    holds. At most 50 entries per folder and `max_entries` lines in all, with notes where cut.
    """
    check_path(path)
    check_count("depth", depth)
    check_count("max_entries", max_entries)
    path = os.fspath(path)
    if not os.path.isdir(path):
        raise NotADirectoryError(f"{path}: no such folder (cwd is {os.getcwd()}); view() shows a file")
    rules = ignore.inherited_rules(path)
    lines = [_norm(path).rstrip("/") + "/"]
    state = {"left": max_entries}
    _tree(os.path.abspath(path), rules, 1, depth, lines, state)
    if state["left"] <= 0:
        lines.append(f"[... cut at {max_entries} lines; tree(path, depth) of a subfolder shows more]")
    return Shown(cap("\n".join(lines)))


PER_FOLDER = 50


def _tree(absdir, rules, level, depth, lines, state):
    rules = rules + ignore._read_rules(absdir)
    entries = ignore.entries(absdir, rules)
    folders = [e for e in entries if e[1]]
    files = [e for e in entries if not e[1]]
    shown = 0
    indent = "  " * level
    for name, is_dir, full in folders + files:
        if state["left"] <= 0:
            return
        if shown >= PER_FOLDER:
            lines.append(f"{indent}[... {len(entries) - shown} more entries]")
            state["left"] -= 1
            return
        shown += 1
        state["left"] -= 1
        if not is_dir:
            lines.append(f"{indent}{name}")
        elif level >= depth:
            inner = len(ignore.entries(full, rules + ignore._read_rules(full)))
            lines.append(f"{indent}{name}/ ({inner} entr{'y' if inner == 1 else 'ies'})")
        else:
            lines.append(f"{indent}{name}/")
            _tree(full, rules, level + 1, depth, lines, state)


EXPORTS = {"grep": grep, "glob": glob, "tree": tree}
