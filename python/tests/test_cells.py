"""One cell end to end (relm.cells): the cap for the model, `_out`, the full-output file, images.

Runs the real plain engine in this process; the only stand-in is the output source (what the cell
printed to sys.stdout, instead of Capture's fd pipe, which is tested in test_capture and test_runner).
"""

import base64
import contextlib
import io
import os
import unittest
from unittest import mock

from relm import cells, display, streamer
from relm.engine_plain import PlainEngine

from .support import png_bytes, temp_dir


class StdoutCapture:
    def __init__(self):
        self.buffer = io.StringIO()
        self.dropped = 0  # what Capture let go of the last cell's output (test_capture)

    def end_cell(self):
        text, self.buffer = self.buffer.getvalue(), io.StringIO()
        return text


class CellTests(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(temp_dir(self), "outputs")
        self.sent = []
        self.runner = self.make(self.dir)

    def make(self, output_dir, first_count=1):
        self.engine = PlainEngine(first_count)
        self.capture = StdoutCapture()
        return cells.CellRunner(self.engine, self.capture, streamer.Streamer(self.sent.append, interval=5), output_dir)

    def execute(self, code, cap=None, cell_id="c"):
        msg = {"type": "execute", "id": cell_id, "code": code}
        if cap is not None:
            msg["cap"] = cap
        with contextlib.redirect_stdout(self.capture.buffer):
            return self.runner.execute(msg)

    def test_output_within_the_cap_is_returned_whole(self):
        result = self.execute("print('hello')", cap=100, cell_id="c1")
        self.assertEqual(
            result, {"type": "result", "id": "c1", "count": 1, "status": "ok", "output": "hello\n", "chars": 6}
        )
        self.assertEqual(self.engine.namespace["_out"], {1: "hello\n"})
        self.assertFalse(os.path.exists(self.dir))  # nothing written for an output that fits

    def test_long_output_keeps_head_and_tail_with_a_marker_and_the_whole_in_a_file(self):
        text = "".join(f"{i:03d}" for i in range(100))  # 300 chars, each position recognisable
        result = self.execute(f"print({text!r}, end='')", cap=20)
        path = os.path.join(os.path.abspath(self.dir), "cell-1.txt")
        marker = f"\n[... 280 characters omitted; the full output is in _out[1] and in {path} ...]\n"
        self.assertEqual(result["output"], text[:10] + marker + text[-10:])
        self.assertEqual((result["chars"], result["truncated"], result["path"]), (300, True, path))
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(self.engine.namespace["_out"][1], text)

    def test_the_marker_does_not_call_full_an_output_whose_middle_was_not_kept(self):
        self.capture.dropped = 5_000
        result = self.execute("print('z' * 100, end='')", cap=10)
        path = os.path.join(os.path.abspath(self.dir), "cell-1.txt")
        self.assertIn(
            f"[... 90 characters omitted; the output (but for 5,000 characters not kept) is in _out[1] and in {path} ...]",
            result["output"],
        )

    def test_an_odd_cap_gives_the_extra_character_to_the_tail(self):
        result = self.execute("print('a' * 50 + 'b' * 50, end='')", cap=7)
        head, _, tail = result["output"].partition("\n[")
        self.assertEqual(head, "aaa")
        self.assertTrue(result["output"].endswith("]\nbbbb"))

    def test_the_default_cap(self):
        result = self.execute(f"print('x' * {cells.DEFAULT_CAP}, end='')")
        self.assertNotIn("truncated", result)
        result = self.execute(f"print('x' * {cells.DEFAULT_CAP + 1}, end='')")
        self.assertTrue(result["truncated"])
        self.assertIn("1 characters omitted", result["output"])

    def test_without_a_writable_output_dir_the_marker_names_only_out(self):
        blocker = os.path.join(temp_dir(self), "a-file")
        open(blocker, "w").close()
        for output_dir in (None, os.path.join(blocker, "outputs")):
            with self.subTest(output_dir=output_dir):
                self.runner = self.make(output_dir)
                result = self.execute("print('y' * 100)", cap=10)
                self.assertNotIn("path", result)
                self.assertIn("[... 91 characters omitted; the full output is in _out[1] ...]", result["output"])

    def test_an_error_is_reported_with_its_output(self):
        result = self.execute("print('partial')\n1/0", cap=10_000)
        self.assertEqual(result["status"], "error")
        self.assertEqual(result["error"], {"name": "ZeroDivisionError", "value": "division by zero"})
        self.assertTrue(result["output"].startswith("partial\n"))
        self.assertIn("ZeroDivisionError", result["output"])

    def test_counts_follow_the_engine(self):
        self.runner = self.make(None, first_count=5)
        self.assertEqual(self.execute("1")["count"], 5)
        self.assertEqual(self.execute("print(_out[5])")["output"], "1\n\n")

    def test_out_survives_a_cell_that_rebinds_or_deletes_it(self):
        self.execute("print('one')")
        self.execute("_out = None")
        # A cell's own output joins `_out` once it has run.
        self.assertEqual(self.execute("print(sorted(_out))")["output"], "[1, 2]\n")
        self.execute("del _out")
        self.assertEqual(self.execute("print(sorted(_out))")["output"], "[1, 2, 3, 4]\n")

    def test_out_drops_the_oldest_outputs_beyond_its_limit_but_keeps_the_latest(self):
        with mock.patch.object(cells, "OUT_LIMIT_CHARS", 100):
            for _ in range(4):
                self.execute("print('x' * 40)")  # 41 chars each
            self.assertEqual(sorted(self.runner.out), [3, 4])
            self.execute("print('y' * 500)")  # alone over the limit: still kept
            self.assertEqual(sorted(self.runner.out), [5])
            self.assertEqual(self.runner._out_chars, 501)

    def test_images_are_returned_with_their_cell_only(self):
        display.begin_cell()
        png = png_bytes()
        self.engine.namespace["add_png"] = display.add_png
        self.engine.namespace["png"] = png
        result = self.execute("add_png(png)\nadd_png('  aGVsbG8=\\n')\nNone")
        self.assertEqual(result["images"], [base64.b64encode(png).decode(), "aGVsbG8="])
        self.assertNotIn("images", self.execute("print(1)"))


class DisplayTests(unittest.TestCase):
    def test_add_png_accepts_bytes_and_base64_text_only(self):
        display.begin_cell()
        self.assertTrue(display.add_png(b"\x89PNG"))
        self.assertTrue(display.add_png(memoryview(b"ab")))
        self.assertTrue(display.add_png(" iVBORw0K \n"))
        self.assertFalse(display.add_png(None))
        self.assertFalse(display.add_png(123))
        self.assertEqual(display.images, ["iVBORw==", "YWI=", "iVBORw0K"])
        display.begin_cell()
        self.assertEqual(display.images, [])


if __name__ == "__main__":
    unittest.main()
