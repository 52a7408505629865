"""What only the IPython engine does: `!cmd` and its exit status, magics, await, display images."""

import base64
import os
import signal
import time
import unittest

from .support import (
    HAVE_IPYTHON,
    NO_IPYTHON,
    Runner,
    alive,
    in_group,
    kill_quietly,
    png_bytes,
    read_pid,
    temp_dir,
    wait_until,
)


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class IPythonKernelTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runner = Runner("ipython", cwd=temp_dir(cls))
        cls.addClassCleanup(cls.runner.close)

    def execute(self, code, **kwargs):
        return self.runner.execute(code, **kwargs)[0]

    def test_a_failing_shell_command_sets_shell_exit(self):
        result = self.execute("!echo out; exit 3")
        self.assertEqual(result["shell_exit"], 3)
        self.assertEqual(result["output"], "out\n")
        # IPython itself carries on after a failing command; the host marks the cell failed from this.
        self.assertEqual(result["status"], "ok")
        self.assertEqual(self.execute("!false")["shell_exit"], 1)
        # Killed by a signal: IPython's convention, minus the signal number.
        self.assertEqual(self.execute("!kill -TERM $$")["shell_exit"], -15)

    def test_a_succeeding_shell_command_sets_no_shell_exit(self):
        result = self.execute("!echo fine")
        self.assertEqual(result["output"], "fine\n")
        self.assertNotIn("shell_exit", result)
        self.assertNotIn("shell_exit", self.execute("x = 1"))

    def test_shell_exit_belongs_to_its_own_cell(self):
        self.assertEqual(self.execute("!false")["shell_exit"], 1)
        self.assertNotIn("shell_exit", self.execute("print('next cell')"))

    def test_a_failure_anywhere_in_the_cell_is_kept(self):
        result = self.execute("!exit 2\n!true\nprint('went on')")
        self.assertEqual(result["shell_exit"], 2)
        self.assertTrue(result["output"].endswith("went on\n"))

    def test_a_command_in_a_loop_or_function_counts_too(self):
        result = self.execute("def run(c):\n    !{c}\nfor c in ['true', 'exit 4', 'true']:\n    run(c)")
        self.assertEqual(result["shell_exit"], 4)

    def test_shell_exit_beside_a_python_error(self):
        result = self.execute("!exit 5\nraise ValueError('later')")
        self.assertEqual(result["status"], "error")
        self.assertEqual(result["error"]["name"], "ValueError")
        self.assertEqual(result["shell_exit"], 5)

    def test_shell_output_is_captured_in_order_with_python_output(self):
        result = self.execute("print('one')\n!echo two; echo three >&2\nprint('four')")
        self.assertEqual(result["output"], "one\ntwo\nthree\nfour\n")  # no pty: no "\r\n"

    def test_cell_magics_and_cd(self):
        result = self.execute("%%bash\necho from bash\necho $((6 * 7))")
        self.assertEqual(result["output"], "from bash\n42\n")
        sub = os.path.join(temp_dir(self), "sub dir")
        os.mkdir(sub)
        start = self.execute("import os\nprint(os.getcwd())")["output"].strip()
        self.execute(f"%cd {sub!r}")
        self.addCleanup(self.execute, f"%cd {start!r}")  # before the directory is removed
        self.assertEqual(self.execute("os.getcwd()")["output"], f"{sub!r}\n")
        self.assertEqual(self.execute("!pwd")["output"], f"{sub}\n")

    def test_a_bash_cell_ends_with_its_script_not_with_its_background_jobs(self):
        # %%bash read the script's pipes until every holder closed them: a server started with & held
        # the cell until the cell timeout (then "Process is interrupted." and status ok).
        folder = temp_dir(self)
        pidfile = os.path.join(folder, "bg.pid")
        result = self.execute(f"%%bash\nsh -c 'echo $$ > {pidfile}; exec sleep 120' &\necho started")
        pid = wait_until(lambda: read_pid(pidfile), what="the background job's pid")  # it may start late
        self.addCleanup(kill_quietly, pid)
        self.assertEqual((result["status"], result["output"]), ("ok", "started\n"))
        os.kill(pid, 0)  # still running: the cell did not wait for it
        failed = self.execute("%%bash\necho partial\nexit 3")
        self.assertEqual(failed["error"]["name"], "CalledProcessError")
        self.assertTrue(failed["output"].startswith("partial\n"))
        self.assertEqual(self.execute("%%sh\nread line || echo no input")["output"], "no input\n")

    def test_capturing_a_command_ends_with_it_not_with_its_background_jobs(self):
        # `x = !cmd` read the command's pty until every holder closed it: a job started with & held the
        # cell until the cell timeout.
        folder = temp_dir(self)
        pidfile, go = os.path.join(folder, "bg.pid"), os.path.join(folder, "go")
        job = f"sh -c 'echo $$ > {pidfile}; while [ ! -e {go} ]; do sleep 0.02; done; echo late' &"
        result = self.execute(f"x = !{job} echo started; echo oops >&2\nprint(x)")
        pid = wait_until(lambda: read_pid(pidfile), what="the background job's pid")
        self.addCleanup(kill_quietly, pid)
        self.assertEqual((result["status"], result["output"]), ("ok", "['started', 'oops']\n"))
        os.kill(pid, 0)  # still running: the cell did not wait for it
        # What the job writes later is not lost: it reaches the kernel's output, as a %%bash job's does.
        open(go, "w").close()
        wait_until(lambda: "late\n" in self.execute("pass")["output"], what="the job's late output")
        # The other ways to capture, and a command that reads its input: end of file, not a hang.
        self.assertEqual(self.execute("!!echo one; echo two")["output"], "['one', 'two']\n")
        self.assertEqual(self.execute("y = %sx echo three\nprint(y)")["output"], "['three']\n")
        self.assertEqual(self.execute("z = !cat\nprint(z)")["output"], "[]\n")

    def test_interrupting_a_capture_stops_its_command(self):
        # `x = !cmd` interrupted left a command that ignores SIGINT running for good (IPython's own
        # getoutput terminates it, as a %%bash cell's is).
        pidfile = os.path.join(temp_dir(self), "cmd.pid")
        cid = self.runner.new_id()
        code = f"x = !trap '' INT; echo $$ > {pidfile}; while :; do sleep 0.05; done"
        self.runner.send({"type": "execute", "id": cid, "code": code})
        pid = wait_until(lambda: read_pid(pidfile), what="the command's pid")
        self.addCleanup(kill_quietly, pid)
        os.killpg(self.runner.pid, signal.SIGINT)
        result, _ = self.runner.collect(cid)
        self.assertEqual(result["error"]["name"], "KeyboardInterrupt")
        wait_until(lambda: not alive(pid), what="the interrupted command to end")

    def test_interrupting_a_bash_cell_stops_it_as_an_error(self):
        cid = self.runner.new_id()
        self.runner.send({"type": "execute", "id": cid, "code": "%%bash\necho started\nsleep 60\necho not reached"})
        wait_until(lambda: in_group(self.runner.pid, "sleep"), what="`sleep` to run in the kernel's group")
        os.killpg(self.runner.pid, signal.SIGINT)
        result, _ = self.runner.collect(cid)
        self.assertEqual(result["error"]["name"], "KeyboardInterrupt")
        self.assertNotIn("\nnot reached\n", "\n" + result["output"])  # (the traceback quotes the cell)

    def test_top_level_await_and_no_out_prompt(self):
        result = self.execute("import asyncio\nawait asyncio.sleep(0)\n6 * 7")
        self.assertEqual(result["output"], "42\n")

    def test_display_of_an_image_returns_it_beside_the_text(self):
        png = png_bytes()
        self.runner.execute(f"from IPython.display import Image, display\npng = {png!r}")
        result = self.execute("print('before')\ndisplay(Image(data=png))\nprint('after')")
        self.assertEqual(result["images"], [base64.b64encode(png).decode()])
        self.assertEqual(result["output"], "before\n[image 1: image/png]\nafter\n")
        result = self.execute("Image(data=png)")  # a final expression with an image repr
        self.assertEqual(result["images"], [base64.b64encode(png).decode()])
        self.assertEqual(result["output"], "")
        self.assertNotIn("images", self.execute("print('no image')"))

    def test_exit_quit_and_sys_exit_stop_the_cell_and_say_so(self):
        # exit() and quit() failed inside IPython (AttributeError: 'RelmShell' object has no attribute
        # 'ask_exit'), and sys.exit() said to use %tb and "To exit: use 'exit', 'quit', or Ctrl-D".
        for code, value in (("exit()", ""), ("quit()", ""), ("import sys\nsys.exit(3)", "3")):
            with self.subTest(code):
                result = self.execute(f"print('before')\n{code}\nprint('after')")
                self.assertEqual(result["status"], "error")
                self.assertEqual(result["error"], {"name": "SystemExit", "value": value})
                self.assertEqual(
                    result["output"],
                    f"before\nSystemExit{': ' + value if value else ''} (exit() and sys.exit() end the cell "
                    "here; the kernel and its variables stay)\n",
                )
        alone = self.execute("exit")  # a line of its own: IPython calls it
        self.assertEqual((alone["status"], alone["output"].split(" (")[0]), ("error", "SystemExit"))
        self.assertEqual(self.execute("print('alive')")["output"], "alive\n")

    def test_interrupting_a_shell_command_stops_the_cell(self):
        code = "print('started', flush=True)\n!sleep 60\nprint('not' + ' reached')"
        cid = self.runner.new_id()
        self.runner.send({"type": "execute", "id": cid, "code": code})
        started = time.monotonic()
        first = self.runner.next()
        self.assertEqual((first["type"], first["text"][:8]), ("stream", "started\n"))
        # Once the shell command runs (a signal before it starts would not test it), as the host does:
        # the whole group, so the shell command is interrupted too.
        wait_until(lambda: in_group(self.runner.pid, "sleep"), what="`sleep` to run in the kernel's group")
        os.killpg(self.runner.pid, signal.SIGINT)
        result, _ = self.runner.collect(cid)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(result["error"]["name"], "KeyboardInterrupt")
        self.assertNotIn("not reached", result["output"])
        self.assertNotIn("shell_exit", result)
        self.assertEqual(self.execute("'alive'")["output"], "'alive'\n")

    def test_a_second_interrupt_while_the_traceback_is_formatted_keeps_the_first(self):
        # The host repeats SIGINT until a cell ends; on a loaded machine one lands while IPython formats
        # the first interrupt's traceback. The cell still ends in KeyboardInterrupt (IPython's fallback
        # for a failing handler raised TypeError), and the next interrupt is handled the same way.
        self.execute(
            "import os, signal\n"
            "_ip = get_ipython()\n"
            "_orig = _ip.InteractiveTB.structured_traceback\n"
            "_fired = []\n"
            "def _slow(*a, **k):\n"
            "    if len(_fired) < _cells:\n"
            "        _fired.append(1)\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "    return _orig(*a, **k)\n"
            "_ip.InteractiveTB.structured_traceback = _slow"
        )
        try:
            for cells in (1, 2):
                result = self.execute(f"_cells = {cells}\nraise KeyboardInterrupt")
                self.assertEqual(result["error"]["name"], "KeyboardInterrupt")
                self.assertIn("KeyboardInterrupt", result["output"])
                self.assertNotIn("Custom TB Handler failed", result["output"])
                self.assertEqual(self.execute("'alive'")["output"], "'alive'\n")
        finally:
            self.execute("_ip.InteractiveTB.structured_traceback = _orig")


if __name__ == "__main__":
    unittest.main()
