"""The toolkit's file functions (relm.toolkit.files, .patch): the edit corpus, view, write, diffs (apply_patch:
test_toolkit_patch)."""

import os
import stat
import subprocess
import unittest
from unittest import mock

from relm.toolkit import _text, files
from relm.toolkit.files import edit, view, write
from relm.toolkit.patch import PatchError, apply_patch

from .edit_corpus import CASES
from .support import HAVE_IPYTHON, NO_IPYTHON, InDir, Runner, temp_dir


class EditCorpus(InDir):
    def test_corpus_is_big_enough(self):
        self.assertGreaterEqual(len(CASES), 40)
        kinds = " ".join(c["name"] for c in CASES)
        for word in (
            "unique",
            "missing",
            "matches",
            "CRLF",
            "latin-1",
            "tab",
            "trailing newline",
            "huge",
            "unicode",
        ):
            self.assertIn(word, kinds)

    def test_every_case(self):
        for case in CASES:
            with self.subTest(case["name"]):
                path = "f.txt"
                if os.path.exists(path):
                    os.unlink(path)
                if case["file"] is not None:
                    self.put(path, case["file"])
                args = (path, case["old"], case["new"]) + ((case["count"],) if "count" in case else ())
                if "refuse" in case:
                    kind, words = case["refuse"]
                    with self.assertRaises(Exception) as caught:
                        edit(*args)
                    names = [t.__name__ for t in type(caught.exception).__mro__]
                    self.assertIn(kind, names, f"{type(caught.exception).__name__}: {caught.exception}")
                    for word in words:
                        self.assertIn(word, str(caught.exception))
                    if case["file"] is not None:
                        self.assertEqual(self.get(path), case["file"], "a refused edit changed the file")
                    else:
                        self.assertFalse(os.path.exists(path))
                else:
                    summary = edit(*args)
                    self.assertEqual(self.get(path), case["expect"])
                    self.assertIn("edited f.txt", summary)
                leftovers = [n for n in os.listdir(".") if n.startswith(".relm-")]
                self.assertEqual(leftovers, [], "temp files left behind")

    def test_mode_is_kept(self):
        self.put("run.sh", b"#!/bin/sh\necho hi\n")
        os.chmod("run.sh", 0o755)
        edit("run.sh", "hi", "there")
        self.assertEqual(os.stat("run.sh").st_mode & 0o777, 0o755)

    def test_a_symlink_stays_a_link(self):
        self.put("real.txt", b"a\n")
        os.symlink("real.txt", "link.txt")
        edit("link.txt", "a", "b")
        write("link.txt", "c\n")
        self.assertTrue(os.path.islink("link.txt"))
        self.assertEqual(self.get("real.txt"), b"c\n")

    def test_line_numbers_agree_with_view_despite_odd_breaks(self):
        # A form feed or a lone CR is a line break to str.splitlines(), not to edit/view/grep.
        self.put("odd.txt", b"a\x0cb\rc\nmark\n")
        self.assertIn("     2\tmark", view("odd.txt"))
        self.assertIn("at line 2", edit("odd.txt", "mark", "MARK"))

    def test_summary_shows_the_diff_and_reads_as_text(self):
        self.put("a.py", b"x = 1\n")
        out = edit("a.py", "x = 1", "x = 2")
        self.assertIn("-x = 1\n+x = 2", out)
        self.assertEqual(repr(out), str(out))  # shown as text, not as a quoted string


class View(InDir):
    def test_numbers_and_ranges(self):
        self.put("a.txt", b"".join(b"line %d\n" % i for i in range(1, 11)))
        self.assertEqual(view("a.txt").splitlines()[0], "     1\tline 1")
        part = view("a.txt", 3, 4)
        self.assertIn("     3\tline 3\n     4\tline 4", part)
        self.assertNotIn("line 5", part)
        self.assertIn("[lines 3-4 of 10]", part)
        self.assertIn("    10\tline 10", view("a.txt", -2))

    def test_cap_says_how_to_continue(self):
        self.put("big.txt", b"".join(b"%d %s\n" % (i, b"x" * 80) for i in range(5000)))
        out = view("big.txt")
        self.assertLess(len(out), files.OUTPUT_CAP + 200)
        self.assertRegex(out, r"view\('big.txt', \d+\) for more")
        long = "y" * 5000
        self.put("long.txt", long.encode() + b"\n")
        self.assertIn("more chars]", view("long.txt"))

    def test_crlf_and_latin1(self):
        self.put("w.txt", b"caf\xe9\r\nb\r\n")
        self.assertEqual(view("w.txt").splitlines()[:2], ["     1\tcafé", "     2\tb"])

    def test_refusals(self):
        os.mkdir("d")
        with self.assertRaisesRegex(IsADirectoryError, "tree"):
            view("d")
        with self.assertRaises(FileNotFoundError):
            view("nope.txt")
        self.put("a.txt", b"a\n")
        with self.assertRaisesRegex(ValueError, "past the end"):
            view("a.txt", 5)
        with self.assertRaisesRegex(ValueError, "start at 1"):
            view("a.txt", 0)
        with self.assertRaises(TypeError):
            view("a.txt", "1")


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class ShownAsCellValue(InDir):
    """A toolkit result that is a cell's last value is shown by IPython's text/plain formatter: as its repr,
    character for character (IPython's own repr printing would break lines at every str.splitlines() break)."""

    def test_the_formatter_shows_each_result_class_as_its_repr(self):
        from IPython.core.formatters import PlainTextFormatter

        from relm.toolkit import search, tests, web

        text = "form\x0cfeed\x1cand\u2028separators"
        self.put("f.py", f"a = 1\n{text}\n".encode())
        found = search.Results([search.Match("f.py", 2, text)])
        page = web.Page(text, {"url": "http://x", "status": 200})
        hits = web.Results([web.Result(text, "http://x", text)])
        report = tests.TestReport("make test", ".", 1, f"{text}\n", 0.1)
        for value in (view("f.py"), found, page, hits, report):
            with self.subTest(type(value).__name__):
                self.assertEqual(PlainTextFormatter()(value), repr(value))


class SpecialFiles(unittest.TestCase):
    """A FIFO or a device where the toolkit reads: an error naming it, or a skip, never a wait. In a
    kernel, so that a hang is a failed test: each of these blocked in open() until the cell's timeout."""

    def test_a_fifo_is_refused_by_name_and_left_out_of_walks(self):
        folder = temp_dir(self)
        os.mkfifo(os.path.join(folder, "pipe"))
        os.mkdir(os.path.join(folder, "sub"))
        os.mkfifo(os.path.join(folder, "sub", ".gitignore"))  # read by every walk below it
        with open(os.path.join(folder, "sub", "a.txt"), "w") as f:
            f.write("hello\n")
        runner = Runner("plain", cwd=folder)
        self.addCleanup(runner.close)
        only = ", not a regular file: the toolkit reads only regular files"
        for code, said in (
            ("view('pipe')", "pipe is a FIFO (named pipe)"),
            ("edit('pipe', 'a', 'b')", "pipe is a FIFO (named pipe)"),
            ("write('pipe', 'x')", "pipe is a FIFO (named pipe)"),
            ("grep('x', 'pipe')", "pipe is a FIFO (named pipe)"),
            ("view('/dev/zero')", "/dev/zero is a character device"),
        ):
            with self.subTest(code):
                result, _ = runner.execute(code)
                self.assertEqual(result["error"], {"name": "NotAFile", "value": said + only})
        self.assertTrue(stat.S_ISFIFO(os.stat(os.path.join(folder, "pipe")).st_mode))  # write() left it be
        result, _ = runner.execute("print(glob('**/*.txt'))\nprint(tree('sub'))")
        self.assertEqual(result["output"], "sub/a.txt\nsub/\n  .gitignore\n  a.txt\n")
        # ripgrep and git grep read that .gitignore themselves, and waited for ever: stopped, Python searches.
        subprocess.run(["git", "init", "-q", folder], check=True)
        result, _ = runner.execute("found = grep('hello')\nprint(found, found.backend)")
        self.assertEqual(result["output"], "sub/a.txt:1: hello python\n")


class Sparse(InDir):
    def test_a_file_over_the_cap_is_refused_unread_and_can_be_written_over(self):
        # A sparse file of terabytes (no disk) was read whole: minutes of zeros filling the kernel's memory.
        with open("huge.img", "wb") as f:
            f.truncate(_text.FILE_CAP + 1)
        for call in (lambda: view("huge.img"), lambda: edit("huge.img", "a", "b")):
            with self.assertRaisesRegex(_text.FileTooLarge, r"^huge.img is 268,435,457 bytes, more than the 268,435,456 view, edit and write read of a file: grep\(\) finds lines in it"):
                call()
        self.assertEqual(write("huge.img", "small\n"), "huge.img: 1 line changed (+1 -0), 1 lines now")
        self.assertEqual(self.get("huge.img"), b"small\n")


class Write(InDir):
    def test_creates_folders_and_reports(self):
        self.assertEqual(write("a/b/c.txt", "one\ntwo\n"), "created a/b/c.txt (2 lines)")
        self.assertEqual(self.get("a/b/c.txt"), b"one\ntwo\n")
        self.assertEqual(write("a/b/c.txt", "one\n2\n"), "a/b/c.txt: 1 line changed (+1 -1), 2 lines now")
        self.assertEqual(write("a/b/c.txt", "one\n2\n"), "a/b/c.txt: unchanged")

    def test_keeps_utf16_of_an_existing_file(self):
        # NUL bytes in a UTF-16 file with a BOM are its text, as view() and edit() read it: not a binary file.
        self.put("u.txt", "\ufeffhello\r\nworld\r\n".encode("utf-16-le"))
        self.assertEqual(write("u.txt", "hello\nthere\n"), "u.txt: 1 line changed (+1 -1), 2 lines now")
        self.assertEqual(self.get("u.txt"), "\ufeffhello\r\nthere\r\n".encode("utf-16-le"))

    def test_a_name_starting_with_two_dots_is_inside_the_cwd(self):
        self.assertEqual(write("..notes.md", "x\n"), "created ..notes.md (1 line)")
        self.assertEqual(write("..d/f.txt", "x\n"), "created ..d/f.txt (1 line)")
        out = edit("..notes.md", "x", "y")
        self.assertTrue(out.startswith("edited ..notes.md: 1 replacement"), out)
        self.assertIn("--- a/..notes.md\n+++ b/..notes.md\n", out)
        # A path that does lead out of the cwd is still named in full.
        outside = os.path.join(os.path.dirname(self.dir), f"out-{os.path.basename(self.dir)}.txt")
        self.addCleanup(os.unlink, outside)
        self.assertEqual(write(outside, "x\n"), f"created {outside} (1 line)")

    def test_keeps_crlf_and_encoding_of_an_existing_file(self):
        self.put("w.txt", b"caf\xe9\r\n")
        write("w.txt", "thé\nx\n")
        self.assertEqual(self.get("w.txt"), b"th\xe9\r\nx\r\n")

    def test_refusals(self):
        os.mkdir("d")
        with self.assertRaises(IsADirectoryError):
            write("d", "x")
        with self.assertRaisesRegex(TypeError, "text must be a str"):
            write("f.txt", b"x")

    def test_a_file_where_a_folder_must_be_is_named(self):
        # The error was "[Errno 17] File exists: '/abs/notes'" (or Errno 20 one level deeper).
        self.put("notes", b"x\n")
        for path in ("notes/today.md", "notes/2026/today.md"):
            with self.subTest(path):
                with self.assertRaisesRegex(NotADirectoryError, f"^{path}: notes is a file, so it cannot hold {path}$"):
                    write(path, "hi\n")
        with self.assertRaises(PatchError) as caught:
            apply_patch("*** Begin Patch\n*** Add File: notes/a.md\n+hi\n*** End Patch")
        self.assertIn("notes/a.md: notes is a file, so it cannot hold notes/a.md", str(caught.exception))
        self.assertEqual(self.get("notes"), b"x\n")


class Diffs(InDir):
    def test_a_changed_files_diff_applies_back(self):
        # The journaled diff (relm.toolkit._text.unified_diff, which diffs only around the changes) is a
        # real unified diff: applied to the old text it gives the new one, for many random changes.
        import random

        from relm.toolkit._text import unified_diff

        rnd = random.Random(7)
        for _ in range(300):
            a = "".join(rnd.choice(["x\n", "y\n", "z\n", ""]) for _ in range(rnd.randint(0, 25)))
            if rnd.random() < 0.3:
                a = a.rstrip("\n")
            lines = a.splitlines(keepends=True)
            for _ in range(rnd.randint(1, 3)):
                i = rnd.randint(0, len(lines))
                if rnd.random() < 0.5:
                    lines.insert(i, rnd.choice(["q\n", "x\n"]))
                elif lines:
                    del lines[min(i, len(lines) - 1)]
            b = "".join(lines)
            if rnd.random() < 0.2:
                b = b.rstrip("\n")
            if a == b:
                continue
            # Both ways: difflib's hunks, and the one hunk made for a big region (here every region).
            for limit in (_text.DIFFLIB_LINES, 0):
                with mock.patch.object(_text, "DIFFLIB_LINES", limit):
                    self.put("p.txt", a.encode())
                    apply_patch(unified_diff("p.txt", a, b))
                    self.assertEqual(self.get("p.txt").decode(), b, (a, b, limit))

    def test_a_big_file_written_anew_is_diffed_without_difflib(self):
        # write() of a 2,000,000-line file took 9 s and a rewrite of all its lines 18 s, almost all of it
        # in difflib, for a diff the journal keeps 20,000 chars of. Created, deleted or too big a region:
        # one hunk, the same as difflib's for a created or deleted file.
        import difflib

        from relm.toolkit._text import unified_diff

        rows = [f"row {i}\n" for i in range(50)]
        for before, after in (("", None), (None, ""), ("x", None)):
            a = None if before is None else "".join(rows) + before
            b = None if after is None else "".join(rows) + after
            lines = difflib.unified_diff(
                [] if a is None else a.splitlines(True),
                [] if b is None else b.splitlines(True),
                "/dev/null" if a is None else "a/f.txt",
                "/dev/null" if b is None else "b/f.txt",
                n=3,
            )
            marked = (x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in lines)
            self.assertEqual(unified_diff("f.txt", a, b), "".join(marked))
        calls = []
        with mock.patch("difflib.SequenceMatcher", side_effect=lambda *a, **k: calls.append(1)):
            big = "".join(f"row {i}\n" for i in range(_text.DIFFLIB_LINES))
            diff = unified_diff("f.txt", big, big.upper())
        self.assertEqual(calls, [])
        self.assertEqual(diff.count("\n-row"), _text.DIFFLIB_LINES)
        self.assertEqual(diff.count("\n+ROW"), _text.DIFFLIB_LINES)

    def test_the_summary_cuts_a_diff_line_as_view_cuts_a_line(self):
        # "-" and 999 chars: exactly the cap, so shown whole; its newline is no char left out.
        self.put("w.txt", b"x" * 998 + b"A\n")
        self.assertNotIn("more chars]", edit("w.txt", "A", "B"))
        self.put("v.txt", b"x" * 1499 + b"A\n")
        out = edit("v.txt", "A", "B")
        self.assertIn("-" + "x" * 999 + " [... 501 more chars]\n", out)
        self.assertIn(" [... 500 more chars]", view("v.txt"))

    def test_huge_single_line_is_cut_in_the_summary(self):
        self.put("h.txt", b"x" * 100_000 + b"A\n")
        out = edit("h.txt", "A", "B")
        self.assertLess(len(out), 4000)
        self.assertIn("more chars]", out)


def files_module_path(name):
    return os.path.join(os.path.dirname(files.__file__), name)


class Package(unittest.TestCase):
    def test_every_function_is_exported_to_kernels(self):
        from relm import api

        for name in ("view", "edit", "apply_patch", "write", "grep", "glob", "tree", "run_tests"):
            self.assertIs(api.EXPORTS[name].__module__.startswith("relm.toolkit"), True, name)
            self.assertGreater(len(api.EXPORTS[name].__doc__ or ""), 200, f"{name} has no manual")

    def test_a_misuse_is_raised_without_the_toolkits_frames(self):
        import traceback

        from relm import api

        # look(), search() and fetch() were not wrapped: a misuse showed their frames too.
        calls = (
            lambda: api.EXPORTS["view"]("/nonexistent/x"),
            lambda: api.EXPORTS["grep"]("("),
            lambda: api.EXPORTS["look"]("x.png", max_side=0),
            lambda: api.EXPORTS["search"]("  "),
            lambda: api.EXPORTS["fetch"]("https://example.org", max_bytes=-1),
            lambda: api.EXPORTS["fetch"].raw(42),
        )
        for call in calls:
            try:  # not assertRaises: it drops the traceback
                call()
            except (OSError, ValueError, TypeError) as error:
                seen = {frame.filename for frame in traceback.extract_tb(error.__traceback__)}
            else:
                self.fail("no exception")
            package = os.path.dirname(files.__file__)
            self.assertEqual({f for f in seen if f.startswith(package)}, {files_module_path("_text.py")})

    def test_a_broken_module_is_left_out_not_the_kernel(self):
        import contextlib
        import importlib
        import io
        import types

        import relm.toolkit as tk

        def fake(name):
            if name.endswith(".tests"):
                raise RuntimeError("boom")
            return importlib.import_module(name)

        tk.importlib = types.SimpleNamespace(import_module=fake)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                exports = tk._collect()
        finally:
            tk.importlib = importlib
            tk.FAILED.pop("tests", None)
        self.assertNotIn("run_tests", exports)
        self.assertIn("edit", exports)
        self.assertIn("the toolkit's tests module did not load: RuntimeError: boom", err.getvalue())


if __name__ == "__main__":
    unittest.main()
