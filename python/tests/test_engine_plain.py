"""The plain-exec engine (no IPython): IPython-like echo, tracebacks of the cell's own lines, await."""

import contextlib
import io
import unittest

from relm.engine_plain import PlainEngine


class PlainEngineTests(unittest.TestCase):
    def setUp(self):
        self.engine = PlainEngine()

    def run_cell(self, code):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            count, error = self.engine.run(code)
        return count, error, out.getvalue()

    def test_a_trailing_expression_is_echoed_and_kept_in_underscore(self):
        self.assertEqual(self.run_cell("x = 20\nx + 22"), (1, None, "42\n"))
        self.assertEqual(self.engine.namespace["_"], 42)
        self.assertEqual(self.run_cell("'text'")[2], "'text'\n")  # repr, as IPython shows it
        self.assertEqual(self.engine.namespace["_"], "text")
        self.assertEqual(self.run_cell("None")[2], "")
        self.assertEqual(self.run_cell("y = 1")[2], "")
        self.assertEqual(self.run_cell("print('hi')")[2], "hi\n")  # print returns None: no echo
        self.assertEqual(self.engine.namespace["_"], "text")

    def test_counts_and_state_carry_across_cells(self):
        engine = PlainEngine(first_count=7)
        self.engine = engine
        self.assertEqual(engine.next_count(), 7)
        self.assertEqual(self.run_cell("def f(a):\n    return a * 2")[:2], (7, None))
        self.assertEqual(self.run_cell("f(21)"), (8, None, "42\n"))
        self.assertEqual(engine.next_count(), 9)
        self.assertEqual(self.run_cell("__name__")[2], "'__main__'\n")

    def test_a_syntax_error_is_reported_without_running_anything(self):
        count, error, out = self.run_cell("print('ran')\ndef broken(:")
        self.assertEqual(error["name"], "SyntaxError")
        self.assertNotIn("ran", out)
        self.assertIn("SyntaxError", out)
        self.assertIn("<cell-1>", out)

    def test_shell_escapes_are_syntax_errors_here(self):
        count, error, out = self.run_cell("!ls")
        self.assertEqual(error["name"], "SyntaxError")

    def test_a_traceback_shows_the_cells_own_lines_not_the_engine(self):
        self.run_cell("def divide(a, b):\n    return a / b")
        count, error, out = self.run_cell("x = 1\ndivide(x, 0)")
        self.assertEqual(error, {"name": "ZeroDivisionError", "value": "division by zero"})
        self.assertIn('File "<cell-2>", line 2', out)
        self.assertIn("divide(x, 0)", out)
        self.assertIn('File "<cell-1>", line 2, in divide', out)
        self.assertIn("return a / b", out)
        self.assertNotIn("engine_plain.py", out)
        self.assertTrue(out.rstrip().endswith("ZeroDivisionError: division by zero"))

    def test_output_before_an_error_is_kept(self):
        count, error, out = self.run_cell("print('before')\nraise ValueError('bad value')")
        self.assertTrue(out.startswith("before\n"))
        self.assertEqual(error, {"name": "ValueError", "value": "bad value"})

    def test_an_interrupt_shows_the_cells_frame_not_relms_handler(self):
        import signal

        from relm import interrupts

        previous = signal.getsignal(signal.SIGINT)
        interrupts.install()
        interrupts.state.running = True
        try:
            _, error, out = self.run_cell("import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)")
        finally:
            interrupts.state.running = False
            signal.signal(signal.SIGINT, previous)
        self.assertEqual(error["name"], "KeyboardInterrupt")
        self.assertIn("<cell-1>", out)
        self.assertNotIn("interrupts.py", out)
        self.assertNotIn("_handler", out)

    def test_exit_and_interrupts_end_the_cell_not_the_kernel(self):
        self.assertEqual(self.run_cell("raise SystemExit(3)")[1]["name"], "SystemExit")
        self.assertEqual(self.run_cell("raise KeyboardInterrupt")[1]["name"], "KeyboardInterrupt")
        self.assertEqual(self.run_cell("1 + 1")[2], "2\n")

    def test_top_level_await(self):
        code = "import asyncio\nasync def later(v):\n    await asyncio.sleep(0)\n    return v\nr = await later(5)"
        self.assertEqual(self.run_cell(code)[1], None)
        self.assertEqual(self.run_cell("await later(r + 1)")[2], "6\n")
        self.assertEqual(self.engine.namespace["r"], 5)

    def test_has_no_shell_exit(self):
        # CellRunner reports `shell_exit` only for engines that run shell commands.
        self.assertIsNone(getattr(self.engine, "shell_exit", None))


if __name__ == "__main__":
    unittest.main()
