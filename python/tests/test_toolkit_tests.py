"""run_tests (relm.toolkit.tests): the test command found from the project, runners' output read into
counts, failing names and the first failure's trace, and real runs of unittest and node --test."""

import json
import os
import shutil
import sys
import unittest

from relm.toolkit.runners import parse
from relm.toolkit.tests import detect, run_tests

from .support import alive, kill_quietly, read_pid, temp_dir, wait_until

OUTPUTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner_outputs")

# file: (runner, passed, failed, skipped, failing names, words of the first failure's trace)
EXPECTED = {
    "pytest.txt": (
        "pytest",
        1,
        2,
        1,
        ["test_x.py::T::test_bad", "test_x.py::T::test_err"],
        ["test_bad", "AssertionError: 1 != 2"],
    ),
    "unittest.txt": (
        "unittest",
        1,
        2,
        1,
        ["test_x.T.test_err", "test_x.T.test_bad"],
        ["ERROR: test_err", "KeyError: 'k'"],
    ),
    "vitest.txt": (
        "vitest",
        1,
        1,
        1,
        ["a.test.ts > math > subtracts"],
        ["expected 1 to be 2", "a.test.ts:4:39"],
    ),
    "jest.txt": ("jest", 1, 1, 1, ["math › subtracts"], ["Expected: 2", "sum.test.js:3:39"]),
    "tap.txt": ("node --test", 2, 2, 1, ["subtracts", "inner fails"], ["not ok 2 - subtracts", "1 !== 2"]),
    "spec.txt": ("node --test", 2, 2, 1, ["subtracts", "inner fails"], ["✖ subtracts", "1 !== 2"]),
    "go.txt": ("go test", 1, 1, 1, ["TestSub"], ["--- FAIL: TestSub", "got 1, want 2"]),
    "cargo.txt": ("cargo test", 1, 1, 1, ["more::bad"], ["---- more::bad stdout ----", "left: 1"]),
}


class Parsers(unittest.TestCase):
    def test_each_runners_output(self):
        self.assertEqual(sorted(EXPECTED), sorted(n for n in os.listdir(OUTPUTS) if n.endswith(".txt")))
        for name, (runner, passed, failed, skipped, names, words) in EXPECTED.items():
            with self.subTest(name):
                with open(os.path.join(OUTPUTS, name), encoding="utf-8") as f:
                    p = parse(f.read())
                self.assertEqual(p.runners, [runner])
                self.assertEqual((p.passed, p.failed, p.skipped), (passed, failed, skipped))
                self.assertEqual(p.failures, names)
                for word in words:
                    self.assertIn(word, p.first_failure)

    def test_passing_runs_and_unknown_output(self):
        p = parse(
            "....\n----------------------------------------------------------------------\nRan 4 tests in 0.01s\n\nOK\n"
        )
        self.assertEqual((p.passed, p.failed, p.skipped, p.failures, p.first_failure), (4, 0, 0, [], None))
        p = parse("============================== 12 passed in 0.31s ==============================\n")
        self.assertEqual((p.passed, p.failed), (12, 0))
        p = parse("compiling...\nall good\n")
        self.assertEqual((p.passed, p.failed, p.runners), (None, None, []))

    def test_several_runners_add_up(self):
        with open(os.path.join(OUTPUTS, "unittest.txt"), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(OUTPUTS, "go.txt"), encoding="utf-8") as f:
            text += "\n" + f.read()
        p = parse(text)
        self.assertEqual(p.runners, ["unittest", "go test"])
        self.assertEqual((p.passed, p.failed), (2, 3))
        self.assertIn("KeyError", p.first_failure)


class Detect(unittest.TestCase):
    def project(self, files):
        root = temp_dir(self)
        for name, text in files.items():
            path = os.path.join(root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    def test_commands(self):
        py = sys.executable
        cases = [
            ({"package.json": json.dumps({"scripts": {"test": "vitest run"}})}, "npm test"),
            ({"package.json": json.dumps({"scripts": {"test": "jest"}}), "pnpm-lock.yaml": ""}, "pnpm test"),
            ({"Makefile": "build:\n\tcc x.c\ntest: build\n\t./run\n"}, "make test"),
            ({"Cargo.toml": "[package]\n"}, "cargo test"),
            ({"go.mod": "module m\n"}, "go test -v ./..."),
        ]
        for files, command in cases:
            with self.subTest(command):
                root = self.project(files)
                self.assertEqual(detect(root), (command, root))
        # npm's placeholder script is no test command; the Makefile is used instead.
        root = self.project(
            {
                "package.json": json.dumps(
                    {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
                ),
                "Makefile": "test:\n\ttrue\n",
            }
        )
        self.assertEqual(detect(root)[0], "make test")
        root = self.project({"pyproject.toml": "[tool.pytest.ini_options]\n"})
        self.assertIn("pytest", detect(root)[0])
        root = self.project({"tests/test_a.py": ""})
        self.assertTrue(
            detect(root)[0].startswith(py.replace(" ", "\\ "))
            or "pytest" in detect(root)[0]
            or "unittest" in detect(root)[0]
        )
        # From a subfolder, the project above it.
        root = self.project({"Makefile": "test:\n\ttrue\n", "src/x/y.c": ""})
        self.assertEqual(detect(os.path.join(root, "src", "x")), ("make test", root))

    def test_nothing_found_says_what_to_do(self):
        root = self.project({"README": "hi"})
        os.mkdir(os.path.join(root, ".git"))
        with self.assertRaisesRegex(ValueError, "no test command found.*run_tests\\("):
            detect(root)


UNIT_PROJECT = {
    "tests/__init__.py": "",
    "tests/test_calc.py": (
        "import unittest\nfrom calc import add\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
        "    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n"
    ),
    "calc.py": "def add(a, b):\n    return a - b\n",
}


class RealRuns(unittest.TestCase):
    def setUp(self):
        self.root = temp_dir(self)
        for name, text in UNIT_PROJECT.items():
            path = os.path.join(self.root, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def test_unittest_fails_then_passes(self):
        cmd = f"{sys.executable} -m unittest discover -s tests -t ."
        report = run_tests(cmd, cwd=self.root)
        self.assertFalse(report.ok)
        self.assertEqual((report.passed, report.failed), (1, 1))
        self.assertEqual(report.failures, ["tests.test_calc.T.test_add"])
        self.assertIn("AssertionError: 0 != 4", report.first_failure)
        self.assertIn("FAILED (exit 1)", repr(report))
        self.assertIn("Ran 2 tests", report.tail)
        with open(os.path.join(self.root, "calc.py"), "w") as f:
            f.write("def add(a, b):\n    return a + b\n")
        report = run_tests(
            [sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", "."], cwd=self.root
        )
        self.assertTrue(report.ok)
        self.assertEqual((report.passed, report.failed, report.failures), (2, 0, []))
        self.assertTrue(repr(report).startswith("run_tests: "))
        self.assertIn("— passed in", repr(report))

    def test_detected_in_the_cwd(self):
        old = os.getcwd()
        os.chdir(self.root)
        self.addCleanup(os.chdir, old)
        report = run_tests()
        self.assertEqual(report.failed, 1)
        self.assertEqual(report.cwd, self.root)

    def test_node_test(self):
        if not shutil.which("node"):
            self.skipTest("node is not installed")
        with open(os.path.join(self.root, "a.test.mjs"), "w") as f:
            f.write(
                'import test from "node:test";\nimport assert from "node:assert";\n'
                'test("ok", () => {});\ntest("bad", () => assert.equal(1, 2));\n'
            )
        report = run_tests("node --test a.test.mjs", cwd=self.root)
        self.assertEqual((report.passed, report.failed, report.failures), (1, 1, ["bad"]))
        self.assertIn("1 == 2", report.first_failure)

    def test_timeout_stops_the_whole_group(self):
        report = run_tests("sleep 30 & sleep 30; echo never", timeout=0.5, cwd=self.root)
        self.assertTrue(report.timed_out)
        self.assertFalse(report.ok)
        self.assertIn("TIMED OUT", repr(report))
        self.assertNotIn("never", report.output)

    def test_a_process_left_holding_the_output_does_not_hold_the_report(self):
        # The command ends (or times out) but leaves a process with its stdout: run_tests waited for that
        # process too, the whole 30 s here, and a timeout did not hold for one outside its group. The
        # left process is still alive when the report comes: it was not waited for.
        for cmd, timeout in (
            ("echo '1 passed'; (sh -c 'echo $$ > bg.pid; exec sleep 30' &)", None),
            ("setsid sh -c 'echo $$ > bg.pid; exec sleep 30' & echo started; sleep 60", 1),
        ):
            with self.subTest(cmd):
                report = run_tests(cmd, timeout=timeout, cwd=self.root)
                # Written by the process left behind, which may not have run yet when the report comes.
                pid = wait_until(lambda: read_pid(os.path.join(self.root, "bg.pid")), what="bg.pid")
                self.addCleanup(kill_quietly, pid)
                self.assertTrue(alive(pid), "the report waited for the process left behind")
                self.assertEqual(report.timed_out, timeout is not None)
                self.assertIn("passed" if timeout is None else "started", report.output)

    def test_misuse(self):
        with self.assertRaisesRegex(ValueError, "cmd must be"):
            run_tests(42)
        with self.assertRaisesRegex(ValueError, "timeout"):
            run_tests("true", timeout=-1)


if __name__ == "__main__":
    unittest.main()
