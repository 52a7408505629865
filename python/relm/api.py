"""Functions pre-imported into every kernel's user namespace.

To add one, define it here and list it in EXPORTS; the runner installs EXPORTS into the namespace
and hides these names from the variables listing.
"""

import json

from . import calls, handoff
from .agents import llm, rlm
from .approvals import request
from .messages import inbox, send
from .schedule import schedule
from .goals import done, goal
from .plan import plan
from .harness import harness, install_import_watch
from .mcp import mcp
from .toolkit import EXPORTS as TOOLKIT


def submit(value):
    """Sets this agent's result to `value` (any picklable value) and ends its run after this cell.

    A parent agent's rlm() call gets the value itself; a person sees it as JSON, or as its repr().
    """
    try:
        json.dumps(value, allow_nan=False)
        as_json = {"json": value}
    except (TypeError, ValueError):
        as_json = {}
    try:
        path = handoff.dump(value, "submit(): the value")
    except TypeError:
        if not as_json:
            raise
        path = None
    calls.call("submit", {**as_json, "repr": _short_repr(value), "pickle": path})


def _short_repr(value, limit=2000):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


EXPORTS = {
    "submit": submit,
    "rlm": rlm,
    "llm": llm,
    "send": send,
    "inbox": inbox,
    "schedule": schedule,
    "goal": goal,
    "done": done,
    "plan": plan,
    "todo": plan,
    "harness": harness,
    "mcp": mcp,
    "request": request,
    # view, edit, apply_patch, write, grep, glob, tree, run_tests and the web and image functions.
    **TOOLKIT,
}


def _no_input(prompt=""):
    """Nobody types into a kernel: waiting for an answer would wait forever."""
    raise RuntimeError(
        "input() is not available: no person is attached to this kernel. Decide yourself, or end "
        f"your turn and ask in your answer. (The prompt was: {str(prompt)[:200]!r})"
    )


def install(namespace, output_dir=None):
    """Installs EXPORTS into the user namespace; `output_dir` is where values handed to the host go."""
    import builtins

    builtins.input = _no_input
    handoff.configure(output_dir)
    install_import_watch()
    namespace.update(EXPORTS)
    return list(EXPORTS)
