"""The IPython engine's shortcut past IPython's input transforms (relm.engine_ipython): every cell comes out
exactly as IPython's own transform_cell makes it, whether the shortcut takes it or not."""

import functools
import unittest

from .support import HAVE_IPYTHON, NO_IPYTHON


@functools.cache
def _engine():
    from relm import engine_ipython

    return engine_ipython.create()  # IPython's shell is a singleton: one for the whole module

# Plain Python (the shortcut's), IPython syntax (its own path) and the edges between them.
CELLS = [
    "x = 1",
    "x = 1\n",
    "",
    "pass\n\n\n",
    "print(1)\nprint(2)",
    "x = (1,\n     2)",
    "for i in range(2):\n    y = i\n",
    "s = 'a;b/c,d'  # comment",
    "d = {'k': [1, 2]}\r\nz = 3\r\n",
    "t = 'ünïcode ✓'",
    # single lines the dynamic transforms (automagic, autocall of exit) may rewrite
    "pwd",
    "cd /tmp",
    "exit",
    "ls -la",
    "who",
    "x.y = 2",
    "pwd\rx = 1",
    "pwd\u2028x = 1",
    # IPython syntax
    "a != b",
    "x = !ls",
    "y = %pwd",
    "%time x = 1",
    "%%bash\necho hi",
    "obj?",
    "len??",
    "!echo hi",
    "  x = 1\n  y = 2",
    "\nx = 1",
    ">>> x = 1\n... y = 2",
    "x = 1\n>>> y = 2",
    "In [1]: x = 1\n   ...: y = 2",
    "f(1,\n/2)",
    "print\n,a b",
    ";f a b",
    "/f a",
    "x = 1 if ... else 2",
    "def f():\n    %time pass",
]


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class TransformShortcutTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shell = _engine().shell

    def ipython_own(self, cell):
        from IPython.core.interactiveshell import InteractiveShell

        return InteractiveShell.transform_cell(self.shell, cell)

    def test_every_cell_is_transformed_as_ipython_would(self):
        for cell in CELLS:
            with self.subTest(cell=cell):
                self.assertEqual(self.shell.transform_cell(cell), self.ipython_own(cell))

    def test_the_shortcut_takes_plain_cells_and_leaves_ipython_syntax_to_ipython(self):
        from relm.fastcell import SPECIAL as _SPECIAL

        plain = ["x = 1", "print(1)\nprint(2)", "pwd", "exit", "s = 'a;b/c,d'"]
        special = ["a != b", "obj?", "%time x", ">>> x", "In [1]: x", "f(1,\n/2)", "x = ..."]
        self.assertEqual([c for c in plain if _SPECIAL.search(c)], [])
        self.assertEqual([c for c in special if not _SPECIAL.search(c)], [])

    def test_a_name_bound_in_the_namespace_is_no_magic_on_either_path(self):
        # The dynamic transforms read the namespace: a variable named like a magic is just the variable.
        self.shell.user_ns["pwd"] = "mine"
        try:
            self.assertEqual(self.shell.transform_cell("pwd"), self.ipython_own("pwd"))
            self.assertEqual(self.shell.transform_cell("pwd"), "pwd\n")
        finally:
            del self.shell.user_ns["pwd"]
        self.assertNotEqual(self.shell.transform_cell("pwd"), "pwd\n")


class _Html:
    def _repr_html_(self):
        return "<b>html</b>"


class _Png:
    def _repr_png_(self):
        return b"\x89PNG\r\n\x1a\nnot really"


class _Bundle:
    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": "bundle", "text/html": "<i>bundle</i>"}


class _Pretty:
    def _repr_pretty_(self, p, cycle):
        p.text("pretty")


class _BrokenHtml:
    def _repr_html_(self):
        raise RuntimeError("never asked while text/html is off")

    def __repr__(self):
        return "broken-html"


class _BrokenPng:
    def _repr_png_(self):
        raise RuntimeError("png failed")

    def __repr__(self):
        return "broken-png"


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class DisplayFormatterTests(unittest.TestCase):
    """relm's display formatter skips disabled formatters: it must format everything as IPython's does."""

    def formatters(self):
        from IPython.core.formatters import DisplayFormatter

        shell = _engine().shell
        ipython = DisplayFormatter(parent=shell)
        ipython.active_types = list(shell.display_formatter.active_types)
        return shell.display_formatter, ipython

    def format_both(self, obj):
        import contextlib
        import io

        results = []
        for formatter in self.formatters():
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):  # a failing formatter's traceback goes here
                results.append((formatter.format(obj), printed.getvalue()))
        return results

    def test_the_same_format_data_for_every_kind_of_value(self):
        values = [1, "s", [1, {"a": (2, 3)}], None, _Html(), _Png(), _Bundle(), _Pretty(), _BrokenHtml(), _BrokenPng()]
        for value in values:
            with self.subTest(value=type(value).__name__):
                relm, ipython = self.format_both(value)
                self.assertEqual(relm, ipython)
        self.assertEqual(set(self.format_both(_Html())[0][0][0]), {"text/plain"})  # text/html is off
        self.assertIn("image/png", self.format_both(_Png())[0][0][0])
        self.assertIn("png failed", self.format_both(_BrokenPng())[0][1])

    def test_a_formatter_enabled_later_runs_again(self):
        relm, ipython = self.formatters()
        # relm's is the shared shell's formatter: switched back even when an assertion fails, or the
        # tests after this one would see text/html on.
        self.addCleanup(setattr, relm.formatters["text/html"], "enabled", False)
        for formatter in (relm, ipython):
            formatter.formatters["text/html"].enabled = True
        value = _Html()  # one object: its text/plain repr names its address
        relm_data, ipython_data = (f.format(value) for f in (relm, ipython))
        self.assertEqual(relm_data, ipython_data)
        self.assertEqual(relm_data[0]["text/html"], "<b>html</b>")
        relm.formatters["text/html"].enabled = False
        self.assertNotIn("text/html", relm.format(_Html())[0])


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class HistoryTests(unittest.TestCase):
    def test_cells_are_not_queued_for_a_history_database_that_is_off_and_in_still_has_them(self):
        engine = _engine()
        for i in range(50):
            engine.run(f"v = {i}")
        history = engine.shell.history_manager
        self.assertFalse(history.enabled)
        self.assertEqual(len(history.db_input_cache), 0)
        ns = engine.namespace
        self.assertEqual(ns["In"][-1], "v = 49")
        self.assertEqual(ns["_i"], "v = 48")  # IPython's `_i`: the input before the last one run
        self.assertEqual(ns["_ii"], "v = 47")
