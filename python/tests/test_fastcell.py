"""relm.fastcell against IPython's own run_cell: two real kernels, one with the shortcut and one without
(RELM_KERNEL_FASTCELL=0), run the same cells in the same order; every result message (output, status,
error, count) and the state IPython keeps (In/Out, `_`, `_i*`, execution_count, events, trait observers)
must come out the same, and the shortcut must have taken exactly the plain cells."""

import os
import signal
import unittest

from .support import HAVE_IPYTHON, NO_IPYTHON, Runner, temp_dir, wait_until

# (cell, whether the shortcut takes it). Run in this order: later cells read what earlier ones left.
CELLS = [
    (
        "_ev = []\n_ip = get_ipython()\n"
        "def _record(name):\n"
        "    def hook(*args):\n"
        "        arg = args[0] if args else None\n"
        "        info = getattr(arg, 'info', arg)\n"
        "        _ev.append((name, getattr(info, 'raw_cell', None), getattr(arg, 'execution_count', None),\n"
        "                    getattr(arg, 'success', None), getattr(arg, 'result', None)))\n"
        "    return hook\n"
        "for _name in ('pre_execute', 'pre_run_cell', 'post_execute', 'post_run_cell'):\n"
        "    _ip.events.register(_name, _record(_name))\n",
        True,
    ),
    ("x = 1", True),
    ("x", True),  # the display hook: Out, _, _N
    ("x;", True),  # `;` suppresses it
    ("x + 1  # a comment after the value", True),
    ("[e for e in _ev if e[1] == 'x + 1  # a comment after the value']", True),  # the value in the result
    ("print('a')\nx + 10\n", True),
    ("print('one')\nprint('two')\n'three'", True),
    ("_, __, ___", True),
    ("Out[3], sorted(Out), _3", True),
    ("_i, _ii, _iii, _i2, In[-1], len(In)", True),
    ("def f(n):\n    return n * 2\n", True),
    ("f(21)", True),
    ("del x", True),
    ("x", True),  # NameError and its traceback
    ("def g():\n    raise ValueError('deep')\n\ng()", True),
    ("1/0", True),
    ("x = (1,\n", True),  # SyntaxError while parsing
    ("if True:\ny = 2", True),  # IndentationError
    ("y = 7\nreturn 5", True),  # SyntaxError from compiling the second statement, after the first ran
    ("y", True),
    ("print('w')\nw = 1 is 1\nw", True),  # a SyntaxWarning while compiling, after the print
    ("raise SystemExit(3)", True),
    ("raise KeyboardInterrupt", True),  # relm's handler for interrupts (no relm frames)
    ("_ip.last_execution_succeeded, _ip.execution_count", True),
    ("from __future__ import annotations\ndef h(a: not_defined): pass\nh.__annotations__", True),
    ("def k(b: also_not_defined): pass\nk.__annotations__", True),  # the compiler kept the future flag
    ("_seen = []\n_ip.observe(lambda change: _seen.append(change['new']), 'execution_count')", True),
    ("z = 3", True),  # execution_count now observed: written through traitlets
    ("_seen", True),
    ("%pwd", False),
    ("!echo shell", False),
    ("pwd", False),  # automagic: the dynamic transform rewrites it
    ("import asyncio\nawait asyncio.sleep(0)\n'awaited'", False),  # top-level await
    ("", False),
    ("q = '50% off'", False),  # a `%` anywhere: IPython's own path, conservatively
    ("_ih[-4:], _oh.get(len(In) - 2)", True),
    ("[e for e in _ev if e[1] == 'z = 3']", True),
    ("len(_ev), _ip.history_manager.input_hist_raw[-3:]", True),
]


@unittest.skipUnless(HAVE_IPYTHON, NO_IPYTHON)
class FastCellTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cwd = temp_dir(cls)  # the same for both: `%pwd` prints it
        cls.fast = Runner("ipython", cwd=cwd)
        cls.addClassCleanup(cls.fast.close)
        cls.slow = Runner("ipython", cwd=cwd, env={"RELM_KERNEL_FASTCELL": "0"})
        cls.addClassCleanup(cls.slow.close)

    def both(self, code):
        results = []
        for kernel in (self.fast, self.slow):
            result, streamed = kernel.execute(code)
            result = {k: v for k, v in result.items() if k != "id"}
            results.append((result, streamed))
        self.assertEqual(results[0], results[1], f"cell {code!r}")
        return results[0][0]

    def fast_runs(self):
        # Read in both kernels (the cell counts stay equal); the slow one must never take the shortcut.
        self.assertEqual(self.slow.execute("import relm.fastcell\nprint(relm.fastcell.runs)")[0]["output"], "0\n")
        return int(self.fast.execute("import relm.fastcell\nprint(relm.fastcell.runs)")[0]["output"])

    def test_the_same_cells_give_the_same_results_and_state(self):
        outputs = {}  # the last result of each cell's code
        for code, plain in CELLS:
            before = self.fast_runs()
            result = self.both(code)
            # (the first read of the count is itself a plain cell, counted once it has run)
            self.assertEqual(self.fast_runs() - before, 2 if plain else 1, f"path of {code!r}")
            outputs.setdefault(code, []).append(result)
        outputs = {code: results[-1] for code, results in outputs.items()}
        count_of_x_plus_1 = outputs["x + 1  # a comment after the value"]["count"]
        # The comparison above is only worth something if the cells did what they are meant to.
        self.assertIn("NameError: name 'x' is not defined", outputs["x"]["output"])
        self.assertEqual(outputs["x;"]["output"], "")
        self.assertEqual(outputs["print('one')\nprint('two')\n'three'"]["output"], "one\ntwo\n'three'\n")
        self.assertIn("ValueError: deep", outputs["def g():\n    raise ValueError('deep')\n\ng()"]["output"])
        self.assertIn("SyntaxError", outputs["x = (1,\n"]["output"])
        self.assertIn("IndentationError", outputs["if True:\ny = 2"]["output"])
        self.assertEqual(outputs["y"]["output"], "7\n")
        self.assertIn("SyntaxWarning", outputs["print('w')\nw = 1 is 1\nw"]["output"])
        self.assertEqual(outputs["def k(b: also_not_defined): pass\nk.__annotations__"]["output"], "{'b': 'also_not_defined'}\n")
        self.assertIn("KeyboardInterrupt", outputs["raise KeyboardInterrupt"]["output"])
        self.assertNotIn("relm", outputs["raise KeyboardInterrupt"]["output"])
        # The observer saw every count from its own cell's on, the one after `z = 3` among them.
        count = outputs["z = 3"]["count"]
        seen = [int(n) for n in outputs["_seen"]["output"].strip("[]\n").split(", ")]
        self.assertIn(count + 1, seen)
        self.assertEqual(seen, list(range(seen[0], seen[0] + len(seen))))
        events = outputs["[e for e in _ev if e[1] == 'z = 3']"]["output"]
        self.assertEqual(
            events,
            f"[('pre_run_cell', 'z = 3', None, None, None),\n ('post_run_cell', 'z = 3', {count}, True, None)]\n",
        )
        events = outputs["[e for e in _ev if e[1] == 'x + 1  # a comment after the value']"]["output"]
        self.assertIn(f"('post_run_cell', 'x + 1  # a comment after the value', {count_of_x_plus_1}, True, 2)", events)

    @unittest.skipUnless(os.path.exists("/proc/self/wchan"), "needs /proc to see the cell sleep")
    def test_an_interrupt_ends_a_plain_cell_the_same_way(self):
        code = "import time\nprint('started', flush=True)\ntime.sleep(60)\nprint('not' + ' reached')"
        before = self.fast_runs()
        results = []
        for kernel in (self.fast, self.slow):
            cid = kernel.new_id()
            kernel.send({"type": "execute", "id": cid, "code": code})
            first = kernel.next()
            self.assertEqual((first["type"], first["text"]), ("stream", "started\n"))
            # As the host does; once the cell sleeps, so that both tracebacks end on the same line.
            wchan = f"/proc/{kernel.pid}/task/{kernel.pid}/wchan"
            wait_until(lambda: "nanosleep" in _read(wchan), what="the cell to sleep")
            os.killpg(kernel.pid, signal.SIGINT)
            result, _ = kernel.collect(cid)
            results.append({k: v for k, v in result.items() if k != "id"})
        self.assertEqual(results[0], results[1])
        self.assertEqual(results[0]["error"]["name"], "KeyboardInterrupt")
        self.assertIn("time.sleep(60)", results[0]["output"])
        self.assertNotIn("not reached", results[0]["output"])
        self.assertEqual(self.fast_runs() - before, 2)
        self.assertEqual(self.both("'alive'")["output"], "'alive'\n")


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


if __name__ == "__main__":
    unittest.main()
