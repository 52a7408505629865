"""Skill folders on a kernel's import path, after everything Python already has.

The host names them in RELM_SKILL_PATH (os.pathsep-separated), not on PYTHONPATH: PYTHONPATH entries
come before the standard library, so a skill named `json` (or `encodings`, `IPython`, ...) would be what
`import json` gives every later kernel, relm's own runner included, and every Python the kernel starts.
Appended last, a skill can never shadow the standard library, an installed package or relm; a skill
that is shadowed is not used, and `unused()` says so (the session warns, relm doctor too).
"""

import os
import sys

ENV = "RELM_SKILL_PATH"


def folders():
    value = os.environ.get(ENV, "")
    return [entry for entry in value.split(os.pathsep) if entry]


def install():
    """Appends the skill folders to sys.path; returns `shadowed()` of them."""
    found = folders()
    for entry in found:
        if entry not in sys.path:
            sys.path.append(entry)
    return shadowed(found)


def unused(found):
    """One line per skill whose `import NAME` gives another module, saying which and what to do."""
    return [line for _, line in shadowed(found)]


def shadowed(found):
    """(folder, line) per skill whose `import NAME` gives another module: the folder lets the host tell
    the model which of the skills it lists cannot be imported, without passing on the kernel's words."""
    import importlib.util

    out = []
    for folder in found:
        name = os.path.basename(os.path.normpath(folder)).replace("-", "_")
        if not name.isidentifier():
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or _inside(spec.origin, folder):
            continue
        if spec.origin is None or not spec.has_location:
            what = f"the {spec.origin or 'built-in'} module"
        else:
            what = f"the module at {spec.origin}"
        out.append(
            (
                folder,
                f"skill {name} ({folder}) is not used: `import {name}` gives {what}, which comes first; "
                f"rename the skill (its folder and package) to use it",
            )
        )
    return out


def _inside(origin, folder):
    if not origin:
        return True  # a namespace package: the skill's own folder is part of it
    return os.path.abspath(origin).startswith(os.path.join(os.path.abspath(folder), ""))
