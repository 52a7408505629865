"""relm's bundled toolkit: the functions coding and research agents reach for, pre-imported in every kernel.

One module per area; each lists what it exports in its own EXPORTS. Their docstrings are the manual
(`help(edit)`); the system prompt names each in one line (src/agent/kernel-api/toolkit-prompt.ts). Everything here
works on the kernel's own file system relative to its cwd (a remote kernel's too) and reaches the host
only over the kernel's channel (relm.calls), so nothing assumes the host's disk.

Modules: files (view, edit, write), patch (apply_patch), search (grep, glob, tree), tests (run_tests);
web (fetch, search) and images (look) are added beside them.
"""

import importlib
import sys

# Module names in the order their exports are installed; a module that is missing or fails to import
# is left out (and named in FAILED and on stderr) rather than breaking every kernel's start.
_MODULES = ("files", "patch", "search", "tests", "web", "images")
FAILED = {}


def _collect():
    exports = {}
    for name in _MODULES:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except Exception as e:  # noqa: BLE001 - one broken module must not cost the kernel the rest
            # The module itself not there: left out quietly.
            if not (isinstance(e, ModuleNotFoundError) and e.name == f"{__name__}.{name}"):
                FAILED[name] = f"{type(e).__name__}: {e}"
                print(f"relm: the toolkit's {name} module did not load: {FAILED[name]}", file=sys.stderr)
            continue
        exports.update(getattr(module, "EXPORTS", {}))
    return exports


EXPORTS = _collect()
