"""Functions pre-imported into every kernel's user namespace.

To add one, define it here and list it in EXPORTS; the runner installs EXPORTS into the namespace
and hides these names from the variables listing.
"""

import json

from . import host


def submit(value):
    """Sets this agent's result to `value` and ends its run after this cell.

    JSON-able values are sent as they are; anything else is sent as its repr().
    """
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        value = repr(value)
    host.call("submit", {"value": value})


EXPORTS = {
    "submit": submit,
}


def install(namespace, output_dir=None):
    """Installs EXPORTS into the user namespace; `output_dir` is where values handed to the host go."""
    namespace.update(EXPORTS)
    return list(EXPORTS)
