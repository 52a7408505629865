"""The runner as the host sees it: a `python -m relm.runner` process spoken to in JSON lines.

Every case runs against both engines: plain exec always, IPython when this interpreter has it.
"""

import json
import os
import pickle
import signal
import time
import unittest

from relm import handoff

from .support import HAVE_IPYTHON, NO_IPYTHON, Runner, alive, temp_dir, wait_until


class _SleepsWhenLoaded:
    def __reduce__(self):
        return (time.sleep, (600,))


class RunnerContract:
    engine = None

    @classmethod
    def setUpClass(cls):
        cls.outputs = os.path.join(temp_dir(cls), "outputs")
        cls.runner = Runner(cls.engine, output_dir=cls.outputs)
        cls.addClassCleanup(cls.runner.close)

    def run_ok(self, code, **kwargs):
        result, streamed = self.runner.execute(code, **kwargs)
        self.assertEqual(result["status"], "ok", result["output"])
        return result, streamed

    def test_ready_describes_the_kernel(self):
        ready = self.runner.ready
        self.assertEqual(ready["pid"], self.runner.pid)
        self.assertRegex(ready["python"], r"^3\.\d+\.\d+$")
        if self.engine == "plain":
            self.assertIsNone(ready["ipython"])
        else:
            self.assertRegex(ready["ipython"], r"^\d+\.")

    def test_python_and_subprocess_output_become_the_cell_output_in_order(self):
        code = (
            "import os, subprocess, sys\n"
            "print('py')\n"
            "print('err', file=sys.stderr)\n"
            "os.write(1, b'fd1\\n')\n"
            "subprocess.run('echo sub; echo sub-err >&2', shell=True)\n"
            "os.system('echo system')\n"
            "print('héllo ✓')"
        )
        result, streamed = self.run_ok(code)
        self.assertEqual(result["output"], "py\nerr\nfd1\nsub\nsub-err\nsystem\nhéllo ✓\n")
        self.assertEqual(result["chars"], len(result["output"]))
        self.assertEqual(streamed, result["output"])  # streamed live, then the result
        self.assertNotIn("truncated", result)

    def test_output_over_the_cap_replaces_a_fifo_made_at_its_file(self):
        # A FIFO where the next cell's full output goes (a cell can make one): the kernel opened it to
        # write and waited for a reader for ever.
        count = self.run_ok("1")[0]["count"] + 1
        path = os.path.join(os.path.abspath(self.outputs), f"cell-{count}.txt")
        os.makedirs(self.outputs, exist_ok=True)
        os.mkfifo(path)
        result, _ = self.run_ok("print('x' * 300)", cap=100)
        self.assertEqual((result["count"], result["path"]), (count, path))
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "x" * 300 + "\n")

    def test_a_trailing_expression_is_shown_without_a_prompt(self):
        result, _ = self.run_ok("x = 6\nx * 7")
        self.assertEqual(result["output"], "42\n")

    def test_output_over_the_cap(self):
        result, streamed = self.run_ok("print('a' * 150 + 'b' * 150)", cap=100)
        full = "a" * 150 + "b" * 150 + "\n"
        count = result["count"]
        path = os.path.join(os.path.abspath(self.outputs), f"cell-{count}.txt")
        marker = f"\n[... 201 characters omitted; the full output is in _out[{count}] and in {path} ...]\n"
        self.assertEqual(result["output"], "a" * 50 + marker + "b" * 49 + "\n")
        self.assertEqual((result["chars"], result["truncated"], result["path"]), (301, True, path))
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), full)
        # Past the cap the live stream goes on with the newest text (all of it here: less than its tail).
        self.assertEqual(streamed, full)
        check, _ = self.run_ok(f"print(_out[{count}] == {full!r})")
        self.assertEqual(check["output"], "True\n")

    def test_an_error_ends_the_cell_and_the_kernel_goes_on(self):
        result, _ = self.runner.execute("print('before')\n1/0")
        self.assertEqual(result["status"], "error")
        self.assertEqual(result["error"], {"name": "ZeroDivisionError", "value": "division by zero"})
        self.assertTrue(result["output"].startswith("before\n"))
        self.assertIn("ZeroDivisionError", result["output"])
        self.assertNotIn("relm/", result["output"])  # no frames of the runner itself
        self.assertEqual(self.run_ok("'still here'")[0]["output"], "'still here'\n")

    def test_a_cell_that_closes_fds_1_and_2_keeps_its_own_output_and_traceback(self):
        code = (
            "import os\n"
            "print('mine-before')\n"
            "os.close(1)\n"
            "os.close(2)\n"
            "print('mine-after')\n"
            "raise ValueError('boom')"
        )
        result, _ = self.runner.execute(code)
        self.assertEqual(result["status"], "error", result["output"])
        self.assertEqual(result["error"], {"name": "ValueError", "value": "boom"})
        self.assertTrue(result["output"].startswith("mine-before\nmine-after\n"), result["output"])
        self.assertIn("ValueError", result["output"])
        self.assertNotIn("Bad file descriptor", result["output"])
        # The next cell gets only its own output, and the fds work again for subprocesses.
        after, _ = self.run_ok("import subprocess\nprint('next')\n_ = subprocess.run('echo sub', shell=True)")
        self.assertEqual(after["output"], "next\nsub\n")

    def test_counts_increase_per_cell(self):
        first = self.run_ok("1")[0]["count"]
        self.assertEqual(self.run_ok("2")[0]["count"], first + 1)

    def test_input_fails_instead_of_hanging(self):
        result, _ = self.runner.execute("input('name? ')")
        self.assertEqual(result["error"]["name"], "RuntimeError")
        self.assertIn("input() is not available", result["output"])

    def test_messages_framed_by_lines_however_they_arrive(self):
        a, b, c = self.runner.new_id(), self.runner.new_id(), self.runner.new_id()
        two = {"type": "execute", "id": a, "code": "print('A')"}, {"type": "execute", "id": b, "code": "print('B')"}
        self.runner.send_raw(b"\n  \nthis is not json\n" + b"".join(json.dumps(m).encode() + b"\n" for m in two))
        line = json.dumps({"type": "execute", "id": c, "code": "print('ünïcode')"}).encode() + b"\n"
        self.runner.send_raw(line[:7])
        self.runner.send_raw(line[7:])
        self.assertEqual(self.runner.collect(a)[0]["output"], "A\n")
        self.assertEqual(self.runner.collect(b)[0]["output"], "B\n")
        self.assertEqual(self.runner.collect(c)[0]["output"], "ünïcode\n")

    def test_set_var_from_text_and_files(self):
        directory = temp_dir(self)
        text_file = os.path.join(directory, "in.txt")
        with open(text_file, "w", encoding="utf-8") as f:
            f.write("line\n" * 1000)
        binary = os.path.join(directory, "in.bin")
        with open(binary, "wb") as f:
            f.write(b"\xff\xfe\x00")
        var = self.runner.ask({"type": "set_var", "name": "note", "text": "hi"}, "var")["var"]
        self.assertEqual(var, {"name": "note", "type": "str", "size": "2 chars", "preview": "'hi'"})
        var = self.runner.ask({"type": "set_var", "name": "doc", "file": text_file}, "var")["var"]
        self.assertEqual((var["type"], var["size"]), ("str", "5,000 chars"))
        var = self.runner.ask({"type": "set_var", "name": "blob", "file": binary}, "var")["var"]
        self.assertEqual((var["type"], var["size"]), ("bytes", "3 bytes"))
        result, _ = self.run_ok("print(note, len(doc), blob)")
        self.assertEqual(result["output"], "hi 5000 b'\\xff\\xfe\\x00'\n")

    def test_set_var_from_a_pickle_another_kernel_wrote(self):
        previous = handoff._dir
        handoff.configure(temp_dir(self))
        self.addCleanup(handoff.configure, previous)
        path = handoff.dump({"rows": [1, 2]}, "test")
        var = self.runner.ask({"type": "set_var", "name": "given", "pickle": path}, "var")["var"]
        self.assertEqual((var["type"], var["size"]), ("dict", "1 item"))
        self.assertEqual(self.run_ok("print(given['rows'])")[0]["output"], "[1, 2]\n")

    def test_set_var_from_a_pickle_whose_unpickling_never_ends_is_refused_in_time(self):
        # Its __reduce__ callable ran when the child's kernel loaded it, and held that kernel for ever.
        previous = handoff._dir
        handoff.configure(temp_dir(self))
        self.addCleanup(handoff.configure, previous)
        path = handoff.dump(_SleepsWhenLoaded(), "test")
        answer = self.runner.ask({"type": "set_var", "name": "stuck", "pickle": path}, "var")
        self.assertEqual(answer["error"], "stuck took over 5 s to unpickle: not loaded")
        self.assertEqual(self.run_ok("print('stuck' in globals())")[0]["output"], "False\n")

    def test_set_var_refuses_bad_input_with_a_message(self):
        for msg, expected in (
            ({"name": "class", "text": "x"}, "not a valid variable name: 'class'"),
            ({"name": "a b", "text": "x"}, "not a valid variable name: 'a b'"),
            ({"name": "f", "file": "/nonexistent/relm/file"}, "No such file or directory"),
        ):
            with self.subTest(msg=msg):
                answer = self.runner.ask({"type": "set_var", **msg}, "var")
                self.assertIn(expected, answer["error"])
                self.assertNotIn("Traceback", answer["error"])
                self.assertNotIn("var", answer)

    def test_variables_lists_the_users_not_the_kernels(self):
        self.run_ok("import json\nlisted_value = [1, 2, 3]\n_hidden = 1")
        names = [v["name"] for v in self.runner.ask({"type": "variables"}, "vars")["list"]]
        self.assertIn("listed_value", names)
        for kernel_name in ("json", "_hidden", "submit", "rlm", "llm", "_out", "In", "Out", "get_ipython", "exit"):
            self.assertNotIn(kernel_name, names)
        found = [v for v in self.runner.ask({"type": "variables"}, "vars")["list"] if v["name"] == "listed_value"]
        self.assertEqual(found, [{"name": "listed_value", "type": "list", "size": "3 items", "preview": "[1, 2, 3]"}])

    def test_host_requests_from_a_cell_are_answered_while_it_waits(self):
        results = temp_dir(self)
        child_result = os.path.join(results, "r.pkl")
        with open(child_result, "wb") as f:
            pickle.dump({"total": 6}, f)
        calls = []

        def host(method, params):
            calls.append((method, params))
            if method == "rlm.spawn":
                with open(params["variables"][0]["pickle"], "rb") as f:
                    calls.append(("loaded", pickle.load(f)))
                return {"result": {"id": "child-1", "name": "adder"}}
            if method == "rlm.wait":
                value = {"kind": "pickle", "path": child_result}
                return {"result": {"id": "child-1", "status": "done", "value": value}}
            if method == "llm":
                return {"error": {"message": "no model configured", "code": "usage"}}
            if method == "submit":
                return {"result": None}
            raise AssertionError(method)

        code = (
            "r = rlm('add them', numbers=[1, 2, 3])\n"
            "print(r)\n"
            "try:\n    llm('hi')\nexcept ValueError as e:\n    print('llm failed:', e)\n"
            "submit(r['total'])"
        )
        result, _ = self.run_ok(code, on_request=host)
        self.assertEqual(result["output"], "{'total': 6}\nllm failed: no model configured\n")
        self.assertEqual([c[0] for c in calls], ["rlm.spawn", "loaded", "rlm.wait", "llm", "submit"])
        self.assertEqual(calls[1][1], [1, 2, 3])
        self.assertEqual(calls[4][1]["json"], 6)

    def test_snapshot_and_restore_into_another_kernel(self):
        directory = os.path.join(temp_dir(self), "snap")
        self.run_ok("import threading\nkept = {'a': [1, 2]}\nlock = threading.Lock()\ndef f(): pass")
        report = self.runner.ask({"type": "snapshot", "dir": directory}, "snapshot")["report"]
        self.assertIn("kept", report["saved"])
        skipped = {s["name"]: s["reason"] for s in report["skipped"]}
        self.assertEqual(skipped["lock"], "cannot be pickled (TypeError)")
        self.assertEqual(skipped["f"], "defined by code: run its definition again")
        self.assertNotIn("submit", report["saved"] + list(skipped))
        other = Runner(self.engine)
        self.addCleanup(other.close)
        restored = other.ask({"type": "restore", "dir": directory}, "restored")["report"]
        self.assertIn("kept", [v["name"] for v in restored["restored"]])
        self.assertEqual(restored["failed"], [])
        result, _ = other.execute("print(kept)")
        self.assertEqual(result["output"], "{'a': [1, 2]}\n")

    def test_interrupting_a_running_cell(self):
        code = "import time\nprint('started', flush=True)\ntime.sleep(60)\nprint('not' + ' reached')"
        cid = self.runner.new_id()
        self.runner.send({"type": "execute", "id": cid, "code": code})
        started = time.monotonic()
        first = self.runner.next()
        self.assertEqual((first["type"], first["text"][:8]), ("stream", "started\n"))
        os.kill(self.runner.pid, signal.SIGINT)
        result, _ = self.runner.collect(cid)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(result["status"], "error")
        self.assertEqual(result["error"]["name"], "KeyboardInterrupt")
        self.assertNotIn("not reached", result["output"])
        os.kill(self.runner.pid, signal.SIGINT)  # idle now: ignored
        self.assertEqual(self.run_ok("'alive'")[0]["output"], "'alive'\n")


class PlainRunnerTests(RunnerContract, unittest.TestCase):
    engine = "plain"

    def test_shell_escapes_are_syntax_errors_without_ipython(self):
        result, _ = self.runner.execute("!echo hi")
        self.assertEqual(result["error"]["name"], "SyntaxError")
        self.assertNotIn("shell_exit", result)


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class IPythonRunnerTests(RunnerContract, unittest.TestCase):
    engine = "ipython"


class LifecycleTests(unittest.TestCase):
    def test_first_count(self):
        runner = Runner("plain", first_count=12)
        self.addCleanup(runner.close)
        self.assertEqual(runner.execute("1")[0]["count"], 12)

    @unittest.skipUnless(os.path.isdir("/proc"), "needs /proc to tell a zombie from a live process")
    def test_the_host_going_away_ends_the_runner_and_its_subprocesses(self):
        runner = Runner("plain")
        self.addCleanup(runner.close)
        result, _ = runner.execute("import subprocess\np = subprocess.Popen(['sleep', '60'])\nprint(p.pid)")
        child = int(result["output"])
        self.assertTrue(alive(child))
        runner.proc.stdin.close()
        runner.proc.wait(30)
        wait_until(lambda: not alive(child), what="the cell's subprocess to die")

    def test_shutdown_stops_the_runner(self):
        runner = Runner("plain")
        self.addCleanup(runner.close)
        runner.send({"type": "shutdown"})
        runner.proc.wait(30)
        self.assertIsNotNone(runner.proc.returncode)


if __name__ == "__main__":
    unittest.main()
