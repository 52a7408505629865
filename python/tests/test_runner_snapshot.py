"""Snapshots in a running kernel: taken while it waits, given up for the next message, then taken again."""

import os
import unittest

from relm import snapshot

from .support import Runner, temp_dir


class RunnerSnapshotTests(unittest.TestCase):
    def setUp(self):
        self.runner = Runner("plain")
        self.addCleanup(self.runner.close)
        self.dir = os.path.join(temp_dir(self), "snap")

    def test_a_snapshot_gives_way_to_the_next_cell_and_the_next_one_completes(self):
        result, _ = self.runner.execute("small = 1")
        first = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]
        self.assertEqual(first["saved"], ["small"])
        # A long pickling (half a million strings, under the 64 MB cap) ...
        self.runner.execute("rows = [str(i) for i in range(500_000)]")
        # ... and a cell sent right behind the request: the snapshot must not make it wait.
        snap_id, cell_id = self.runner.new_id(), self.runner.new_id()
        self.runner.send_raw(
            (
                f'{{"type": "snapshot", "id": "{snap_id}", "dir": "{self.dir}"}}\n'
                f'{{"type": "execute", "id": "{cell_id}", "code": "rows.append(\'more\')"}}\n'
            ).encode()
        )
        reply = self.runner.expect("snapshot")
        self.assertEqual((reply["id"], reply["report"]), (snap_id, {"superseded": True}))
        result, _ = self.runner.collect(cell_id)
        self.assertEqual(result["status"], "ok")
        # The last complete snapshot is untouched, with no half-written file beside it.
        self.assertEqual(snapshot.read_manifest(self.dir)["saved"], ["small"])
        self.assertEqual(len([f for f in os.listdir(self.dir) if f != snapshot.MANIFEST]), 1)
        # With nothing behind it, the next one finishes and holds the state after the last cell.
        done = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]
        self.assertEqual(done["saved"], ["small", "rows"])
        other = Runner("plain")
        self.addCleanup(other.close)
        other.ask({"type": "restore", "dir": self.dir}, "restored")
        result, _ = other.execute("print(len(rows), rows[-1])")
        self.assertEqual(result["output"], "500001 more\n")

    def test_a_value_whose_pickling_never_ends_is_skipped_and_the_kernel_goes_on(self):
        # Its __reduce__ blocked the snapshot, and with it the kernel: the next cell waited behind it
        # until its timeout, and the kernel was killed with all its variables.
        self.runner.execute(
            "class Hang:\n    def __reduce__(self):\n        import time\n        time.sleep(600)\n"
            "h = Hang()\nkept = [1, 2]"
        )
        report = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]
        self.assertEqual(report["saved"], ["kept"])
        [reason] = [s["reason"] for s in report["skipped"] if s["name"] == "h"]
        self.assertEqual(reason, f"took over {snapshot.VALUE_SECONDS:g} s to pickle: not saved")
        # The same object is not tried again (each round would cost the time limit).
        again = self.runner.ask({"type": "snapshot", "dir": self.dir, "final": True}, "snapshot")["report"]
        self.assertEqual(again["saved"], ["kept"])
        self.assertIn({"name": "h", "reason": reason}, again["skipped"])
        result, _ = self.runner.execute("print(kept)")
        self.assertEqual(result["output"], "[1, 2]\n")

    def test_a_value_whose_unpickling_never_ends_is_skipped_and_the_rest_restored(self):
        # Its __reduce__ callable ran on restore and blocked: the resume waited for ever.
        self.runner.execute(
            "import time\nclass Sleeper:\n    def __reduce__(self):\n        return (time.sleep, (600,))\n"
            "h = Sleeper()\nkept = [1, 2]"
        )
        saved = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]["saved"]
        self.assertEqual(saved, ["h", "kept"])
        other = Runner("plain")
        self.addCleanup(other.close)
        report = other.ask({"type": "restore", "dir": self.dir}, "restored")["report"]
        self.assertEqual([v["name"] for v in report["restored"]], ["kept"])
        self.assertEqual(report["failed"], [{"name": "h", "reason": snapshot.SLOW_LOAD}])
        result, _ = other.execute("print(kept, 'h' in globals())")
        self.assertEqual(result["output"], "[1, 2] False\n")

    def test_a_fifo_made_at_the_manifest_is_replaced_not_waited_on(self):
        # A cell can write the snapshot folder: a FIFO at its manifest held the next snapshot (and a
        # restore) in open(), waiting for a writer, for ever.
        self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")
        manifest = os.path.join(self.dir, snapshot.MANIFEST)
        self.runner.execute(f"import os\nos.unlink({manifest!r})\nos.mkfifo({manifest!r})\nkept = 1")
        report = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]
        self.assertIn("kept", report["saved"])
        self.assertEqual(snapshot.read_manifest(self.dir)["saved"], report["saved"])

    def test_a_variable_named_like_a_kernel_function_is_saved_as_it_is_listed(self):
        # `plan`, `tree`, `done`... are relm's functions until the user rebinds them: then they are the
        # user's, listed by `variables`, and a resumed session must have them back.
        self.runner.execute("plan = ['read', 'fix']\ntree = {'a': 1}")
        listed = [v["name"] for v in self.runner.ask({"type": "variables"}, "vars")["list"]]
        self.assertEqual(listed, ["plan", "tree"])
        report = self.runner.ask({"type": "snapshot", "dir": self.dir}, "snapshot")["report"]
        self.assertEqual((report["saved"], report["skipped"]), (["plan", "tree"], []))
        other = Runner("plain")
        self.addCleanup(other.close)
        other.ask({"type": "restore", "dir": self.dir}, "restored")
        result, _ = other.execute("print(plan, tree)")
        self.assertEqual(result["output"], "['read', 'fix'] {'a': 1}\n")


if __name__ == "__main__":
    unittest.main()
