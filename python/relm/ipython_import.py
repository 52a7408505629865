"""Imports IPython's InteractiveShell without running `IPython/__init__.py` up front.

The package's __init__ imports the terminal front end (prompt_toolkit, jedi, the debugger): about
60% of a ~0.5 s import that a kernel never uses. We register the package module unexecuted, give it
the few names its submodules import from it, and run the real __init__ the first time anything else
is looked up on it (`from IPython import embed` still works). Any surprise falls back to the
ordinary import.
"""

import importlib
import importlib.util
import sys


def interactive_shell_class():
    if "IPython" not in sys.modules:
        try:
            return _lazy()
        except Exception:
            for name in [m for m in sys.modules if m == "IPython" or m.startswith("IPython.")]:
                del sys.modules[name]
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell


def _lazy():
    spec = importlib.util.find_spec("IPython")
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        raise ImportError("IPython")
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["IPython"] = pkg
    loading = []

    def __getattr__(name):
        if loading or name.startswith("__"):
            raise AttributeError(name)
        # `from IPython import paths` asks for a submodule: load just that one.
        if importlib.util.find_spec(f"IPython.{name}") is not None:
            return importlib.import_module(f"IPython.{name}")
        loading.append(name)
        del pkg.__dict__["__getattr__"]
        spec.loader.exec_module(pkg)
        return getattr(pkg, name)

    from IPython.core import release
    from IPython.core.getipython import get_ipython

    pkg.get_ipython = get_ipython
    pkg.version_info = release.version_info
    pkg.__version__ = release.version
    pkg.__getattr__ = __getattr__
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell
