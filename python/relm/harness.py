"""`harness`: the continual harness (memories, prompts, skills, sub-agent specs) from Python.

Entries live in three scopes one writes: "session" (this session's folder), "project" (.relm/harness/,
meant to be committed) and "user" ($RELM_HOME/harness/); relm itself keeps a fourth, "probation" (lessons
earlier sessions of the project learnt, until their verdict promotes or retires them), which `entries()`
and `log()` show but no call writes. Every change is a revision that can be shown and
reverted (`relm harness log`, `relm harness revert REV`). This session's system prompt does not change
when the harness does: new entries take effect in the next session, and an edit applied here reaches
the running agents of this session as a note before their next model request.
"""

import importlib
import os
import sys

from . import calls
from .agents import _call as _agents_call


class ConflictError(Exception):
    """The harness changed under this edit (another session wrote first), or a revert would overwrite
    a later revision; the message names the revision in the way."""


def _call(method, params):
    return _agents_call(method, params, {"conflict": ConflictError})


class Refinement:
    """Edits the refine model proposed and relm checked. Nothing is written until `apply()`."""

    def __init__(self, reply):
        self.id = reply["id"]
        self.scope = reply["scope"]
        self.session = reply["session"]
        self.model = reply["model"]
        self.edits = reply["edits"]
        self.rejected = reply["rejected"]
        self.diff = reply["diff"]
        self.error = reply.get("error")
        self.applied = reply.get("applied")

    def apply(self):
        """Writes the accepted edits as one revision; returns its id and summary."""
        if self.applied is None:
            if not self.edits:
                raise ValueError("this refinement has no edits to apply")
            self.applied = _call("harness.apply", {"id": self.id})
        return self.applied

    def __repr__(self):
        lines = [f"<Refinement of session {self.session} by {self.model} -> {self.scope} scope>"]
        if self.error:
            lines.append(f"nothing proposed: {self.error}")
        elif self.edits:
            state = f"applied as {self.applied['revision']}" if self.applied else "not applied yet: .apply()"
            lines.append(f"{len(self.edits)} edit(s) {state}")
            lines.append(self.diff)
        else:
            lines.append("no edits")
        for r in self.rejected:
            lines.append(f"rejected edit {r['index'] + 1}: {r['reason']}")
        return "\n".join(lines)


class Harness:
    """The harness as this session sees it. `help(harness)` lists what it can do."""

    ConflictError = ConflictError
    Refinement = Refinement

    def entries(self, kind=None, scope=None):
        """Current entries of every scope (dicts: id, kind, title, content, scope, uses, ...)."""
        found = _call("harness.state", {})["entries"]
        return [
            e for e in found if (kind is None or e["kind"] == kind) and (scope is None or e["scope"] == scope)
        ]

    def skills(self):
        """Skill folders visible to this session: name, description, scope, module, dir, uses."""
        return _call("harness.state", {})["skills"]

    def log(self, scope="session"):
        """The scope's revisions, oldest first."""
        return _call("harness.log", {"scope": scope})["revisions"]

    def propose(self, content, kind="memory", title=None, *, op="add", id=None, reason=None, hypothesis=None):
        """Records an edit for the next refinement to consider (it still needs evidence there).

        `hypothesis` says what the edit should change in the work that follows (e.g. "the gate stops
        failing on ImportError"); the edit is judged on that work (`relm harness stats`).
        """
        edit = {
            "op": op,
            "kind": kind,
            "title": title,
            "content": content,
            "id": id,
            "reason": reason,
            "hypothesis": hypothesis,
        }
        return _call("harness.propose", {"edit": {k: v for k, v in edit.items() if v is not None}})

    def refine(self, scope="session", model=None, apply=False):
        """Reviews this session's work since its last refinement and returns the checked edits.

        With apply=False (default) nothing is written: look at the result, then call .apply().
        """
        reply = _call("harness.refine", {"scope": scope, "model": model, "apply": bool(apply)})
        return Refinement(reply)

    def save_skill(self, name, description, code, scope="session", test=None):
        """Saves working code as a skill: a package `name` importable in every later kernel.

        `code` is the package's source (a string, or a function/class/module whose source is taken).
        Before saving, `import name` (and then `test`, a string of code, if given) runs in a fresh
        Python process; a failure raises ValueError and saves nothing.
        """
        if not isinstance(code, str):
            code = _source(code)
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"skill name must be a Python module name, not {name!r}")
        taken = _taken(name)
        if taken:
            raise ValueError(
                f"skill name {name!r} is taken: {taken}. Skills come after it on every kernel's path, so "
                f"`import {name}` would give it, never the skill; choose another name, e.g. {name + '_tools'!r}"
            )
        _smoke_test(name, code, test)
        params = {"name": name, "description": str(description), "code": code, "scope": scope}
        reply = _call("harness.save_skill", params)
        path = reply["path"]
        if path not in sys.path:
            sys.path.append(path)  # last, as every kernel has it (relm.skillpath)
        importlib.invalidate_caches()
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]  # a skill saved again is imported afresh
        return reply

    def cite(self, id):
        """Counts a use of a memory or prompt entry (as citing [id] in a reply does)."""
        return _call("harness.used", {"id": str(id)})

    def revert(self, rev, scope="session", force=False):
        """Appends the inverse of revision `rev`; refused when a later revision changed its entries."""
        return _call("harness.revert", {"rev": rev, "scope": scope, "force": bool(force)})

    def __repr__(self):
        return "<harness: entries(), skills(), log(), propose(), refine(), save_skill(); help(harness)>"


def _source(obj):
    """The source of a function, class or module for save_skill; a class defined in a cell is found
    through its methods (inspect looks for a class in its module's file, and a cell's module has none)."""
    import inspect

    try:
        return inspect.getsource(obj)
    except (OSError, TypeError) as e:
        if not isinstance(obj, type):
            raise ValueError(f"the source of {obj!r} cannot be read ({e}): pass the package's source as a string") from None
    import linecache
    import re
    import textwrap

    head = re.compile(rf"\s*class\s+{re.escape(obj.__name__)}\b")
    for member in vars(obj).values():
        code = getattr(getattr(member, "__func__", member), "__code__", None)
        if code is None:
            continue
        lines = linecache.getlines(code.co_filename)
        for i in range(min(code.co_firstlineno, len(lines)) - 1, -1, -1):
            if head.match(lines[i]):
                while i > 0 and lines[i - 1].lstrip().startswith("@"):
                    i -= 1  # its decorators, as inspect.getsource gives them
                return textwrap.dedent("".join(inspect.getblock(lines[i:])))
    raise ValueError(
        f"the source of {obj.__name__} cannot be found (a class defined in a cell is found through its "
        "methods, and it has none): pass the package's source as a string"
    )


def _taken(name):
    """Where a module `name` already comes from, when it is not a skill's own (saving it again), else None."""
    if name in sys.builtin_module_names:
        return "a module built into Python"
    if name in getattr(sys, "stdlib_module_names", ()):
        return "a module of Python's standard library"
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or (spec.origin is None and spec.submodule_search_locations is not None):
        return None  # nothing, or a folder without __init__.py: a namespace package yields to a skill's
    where = spec.origin if spec.has_location else None
    if not where:
        return f"the module {name} (from {spec.origin or 'an import hook'})"
    # A skill's module sits beside its SKILL.md: folder/NAME.py, or folder/NAME/ as a package.
    inside = os.path.dirname(where)
    for folder in (inside, os.path.dirname(inside)):
        if os.path.isfile(os.path.join(folder, "SKILL.md")):
            return None
    return f"the module {name} at {where}"


def _smoke_test(name, code, test):
    # Imported here: every kernel loads this module, few ever save a skill.
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="relm-skill-") as tmp:
        os.mkdir(os.path.join(tmp, name))
        with open(os.path.join(tmp, name, "__init__.py"), "w", encoding="utf-8") as f:
            f.write(code)
        env = dict(os.environ)
        env["PYTHONPATH"] = tmp + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        # The test may use the other skills, which a kernel has last on its path (relm.skillpath; inline:
        # a remote kernel's relm is imported from memory, not importable by a process it starts).
        others = (
            "import os as _os, sys as _sys\n"
            "_sys.path += [p for p in _os.environ.get('RELM_SKILL_PATH', '').split(_os.pathsep) if p]\n"
        )
        script = others + f"import {name}\n" + (test or "")
        try:
            done = subprocess.run(
                [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
            )
        except subprocess.TimeoutExpired:
            raise ValueError(f"the smoke test of skill {name!r} ran over 120 s; nothing was saved") from None
        if done.returncode != 0:
            what = f"import {name}" + (" and the test" if test else "")
            detail = (done.stderr or done.stdout).strip()[-2000:]
            raise ValueError(f"skill {name!r} failed its smoke test ({what}); nothing was saved:\n{detail}")


class _SkillImports:
    """A meta path finder that only watches: the first import of a skill's package counts one use."""

    def __init__(self):
        self._path = None
        self._names = set()
        self._seen = set()

    def _skills(self):
        if self._path != sys.path:
            self._path = list(sys.path)
            names = set()
            for entry in sys.path:
                if entry and os.path.isfile(os.path.join(entry, "SKILL.md")):
                    names.add(os.path.basename(os.path.normpath(entry)).replace("-", "_"))
            self._names = names
        return self._names

    def find_spec(self, fullname, path=None, target=None):
        if path is None and fullname not in self._seen and fullname in self._skills():
            self._seen.add(fullname)
            try:
                calls.call("harness.used", {"skill": fullname})
            except Exception:  # noqa: BLE001 - a use count must never break an import
                pass
        return None


def install_import_watch():
    if not any(isinstance(f, _SkillImports) for f in sys.meta_path):
        sys.meta_path.insert(0, _SkillImports())


harness = Harness()
