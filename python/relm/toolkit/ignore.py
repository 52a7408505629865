"""A minimal .gitignore matcher and the walk that uses it, for grep/glob/tree without ripgrep or git.

Rules come from every .gitignore from the repository's root (the nearest parent with .git; without one,
every parent, as ripgrep does) down to each directory walked, plus .git/info/exclude; the last rule that
matches wins, `!` re-includes, a trailing `/` matches directories only, a `/` elsewhere anchors the
pattern to its .gitignore's folder, `**` spans folders. An ignored directory is not entered (git cannot
re-include anything below it either). `.git` itself is always skipped; hidden files are kept.
"""

import os
import re
from collections import namedtuple

from ._text import open_regular


def translate(pattern, braces=False):
    """A gitignore glob (already without `!`, leading `/` or trailing `/`) as a regex body; with
    `braces`, `{a,b}` means a or b as in shell and ripgrep globs (not in .gitignore files)."""
    out = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if braces and c == "{":
            end, parts = _brace(pattern, i)
            if end is not None:
                out.append("(?:" + "|".join(translate(p, braces) for p in parts) + ")")
                i = end + 1
                continue
        if c == "*":
            if pattern.startswith("**", i):
                # A whole path part: "**/" any folders (or none), a final "**" anything; else one "*".
                whole = i == 0 or pattern[i - 1] == "/"
                part, width = _DOUBLE_STAR.get(pattern[i + 2 : i + 3] if whole else None, ("[^/]*", 2))
                out.append(part)
                i += width
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


# What "**" as a whole path part becomes, by what follows it: (regex, characters it takes).
_DOUBLE_STAR = {"/": ("(?:.*/)?", 3), "": (".*", 2)}


def _brace(pattern, start):
    """(index of the "}" closing the "{" at `start`, the comma-separated parts), or (None, None)."""
    depth = 0
    parts = []
    last = start + 1
    for i in range(start, len(pattern)):
        c = pattern[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                parts.append(pattern[last:i])
                return i, parts
        elif c == "," and depth == 1:
            parts.append(pattern[last:i])
            last = i + 1
    return None, None


# `base`: the absolute folder of the .gitignore, ending in "/".
Rule = namedtuple("Rule", "base regex negate dir_only")


def parse(text, base):
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        # Trailing spaces are dropped unless escaped with a backslash.
        stripped = line.rstrip(" ")
        line = stripped + " " if stripped.endswith("\\") and len(stripped) < len(line) else stripped
        negate = line.startswith("!")
        if negate or line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = translate(line)
        regex = re.compile(("^" if anchored else "^(?:.*/)?") + body + "$", re.DOTALL)
        rules.append(Rule(base, regex, negate, dir_only))
    return rules


def _read_rules(folder):
    return _rules_in(os.path.join(folder, ".gitignore"), folder)


def _rules_in(path, base):
    """The rules of the ignore file at `path` (none when it cannot be read), relative to `base`."""
    try:
        with open_regular(path) as f:  # a FIFO there would hang every walk
            return parse(f.read().decode("utf-8", "replace"), _slash(base))
    except OSError:
        return []


def _slash(folder):
    folder = os.path.abspath(folder)
    return folder if folder.endswith("/") else folder + "/"


def repo_root(start):
    folder = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def inherited_rules(folder):
    """The rules that apply inside `folder` from .gitignore files above it (and the repo's exclude)."""
    folder = os.path.abspath(folder)
    root = repo_root(folder)
    chain = []  # folders above `folder`, nearest first, up to the repository's root (or /)
    f = folder
    while f != root:
        parent = os.path.dirname(f)
        if parent == f:
            break
        f = parent
        chain.append(f)
    rules = [] if root is None else _rules_in(os.path.join(root, ".git", "info", "exclude"), root)
    for f in reversed(chain):
        rules.extend(_read_rules(f))
    return rules


def ignored(rules, abspath, is_dir):
    """True when the last rule matching `abspath` ignores it."""
    verdict = False
    for r in rules:
        if r.dir_only and not is_dir:
            continue
        if not abspath.startswith(r.base):
            continue
        if r.regex.match(abspath[len(r.base) :]):
            verdict = not r.negate
    return verdict


def walk(top, dirs=False, links=False):
    """Paths below `top` that .gitignore files do not exclude, in path order (each folder's entries by
    name, folders entered where they sort), as (path joined to `top`, is_dir). Symlinks are skipped
    (ripgrep's walk does not search them), or with `links` listed as entries that are not folders (a
    listing has them, as `ls` does) and never followed."""
    # `top` itself is walked even when it is ignored (node_modules/pkg, build): it was asked for.
    top_abs = os.path.abspath(top)
    base_rules = inherited_rules(top_abs)
    yield from _walk(top, top_abs, base_rules + _read_rules(top_abs), dirs, links)


def _walk(shown, absdir, rules, dirs, links):
    for name, is_dir, full in entries(absdir, rules, links=links):
        path = os.path.join(shown, name) if shown not in (".", "") else name
        if is_dir:
            if dirs:
                yield path, True
            yield from _walk(path, full, rules + _read_rules(full), dirs, links)
        else:
            yield path, False


def entries(absdir, rules, links=True):
    """(name, is_dir, full path) of each entry of the folder `absdir` that `rules` keep, in the order of
    their names' bytes; never .git, and no symlinks unless `links` (a link is not followed: it is no folder)."""
    try:
        listing = sorted(os.scandir(absdir), key=lambda e: e.name.encode("utf-8", "surrogateescape"))
    except OSError:
        return []
    out = []
    for e in listing:
        if e.name == ".git":
            continue
        try:
            if not links and e.is_symlink():
                continue
            is_dir = e.is_dir(follow_symlinks=False)
        except OSError:
            continue
        full = os.path.join(absdir, e.name)
        if not ignored(rules, full, is_dir):
            out.append((e.name, is_dir, full))
    return out


class Cache:
    """Whether single paths are ignored, with the rules of each folder read once (for results found by a
    tool whose own ignoring is not trusted). With `top` (the folder searched) neither it nor a folder
    above it counts as ignored: it was asked for."""

    def __init__(self, top=None):
        self._rules = {}
        self._dirs = {}
        self._top = None if top is None else os.path.abspath(top)

    def rules(self, folder):
        """The rules that apply to the entries of `folder` (absolute)."""
        if folder not in self._rules:
            parent = os.path.dirname(folder)
            top = folder == repo_root(folder) or parent == folder
            self._rules[folder] = (inherited_rules(folder) if top else self.rules(parent)) + _read_rules(folder)
        return self._rules[folder]

    def dir_ignored(self, folder):
        if folder not in self._dirs:
            parent = os.path.dirname(folder)
            top = self._top
            above_top = top is not None and (top + "/").startswith(folder + "/")
            asked = parent == folder or folder == repo_root(folder) or above_top
            self._dirs[folder] = not asked and (self.dir_ignored(parent) or ignored(self.rules(parent), folder, True))
        return self._dirs[folder]

    def ignored(self, path):
        full = os.path.abspath(path)
        folder = os.path.dirname(full)
        return self.dir_ignored(folder) or ignored(self.rules(folder), full, False)
