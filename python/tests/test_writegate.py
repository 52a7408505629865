"""The first cell's write gate (relm.writegate) in a real runner: reads run at once, writes into the work
tree wait for the gate file to go, writes elsewhere do not."""

import os
import unittest

from .support import Runner, temp_dir, wait_until


class WriteGateTest(unittest.TestCase):
    def setUp(self):
        root = temp_dir(self)
        self.tree = os.path.join(root, "tree")
        os.makedirs(self.tree)
        with open(os.path.join(self.tree, "notes.txt"), "w") as f:
            f.write("before\n")
        self.gate = os.path.join(root, "checkpoint.gate")
        self.outside = os.path.join(root, "outside.txt")
        self.runner = Runner("plain", cwd=self.tree)
        self.addCleanup(self.runner.close)

    def send(self, code, gate=True):
        cid = self.runner.new_id()
        msg = {"type": "execute", "id": cid, "code": code}
        if gate:
            msg.update(gate=self.gate, tree=self.tree)
        self.runner.send(msg)
        return cid

    def test_a_write_into_the_tree_waits_for_the_gate(self):
        open(self.gate, "w").close()
        code = (
            "print(open('notes.txt').read().strip())\n"  # a read: not held
            f"open({self.outside!r}, 'w').write('reached')\n"  # outside the tree: not held
            "open('notes.txt', 'w').write('after\\n')\n"  # held until the gate goes
            "print('wrote')\n"
        )
        cid = self.send(code)
        wait_until(lambda: os.path.exists(self.outside), what="the cell to reach its write")
        with open(os.path.join(self.tree, "notes.txt")) as f:
            self.assertEqual(f.read(), "before\n")  # held, not yet written
        os.remove(self.gate)  # the checkpoint is taken
        result, _ = self.runner.collect(cid)
        self.assertEqual(result["status"], "ok", result["output"])
        self.assertEqual(result["output"], "before\nwrote\n")
        with open(os.path.join(self.tree, "notes.txt")) as f:
            self.assertEqual(f.read(), "after\n")

    def test_a_subprocess_waits_and_a_cell_without_writes_does_not(self):
        open(self.gate, "w").close()
        result, _ = self.runner.collect(self.send("x = sum(range(10))\nprint(x)"))
        self.assertEqual(result["output"], "45\n")  # ran with the gate still there
        cid = self.send(f"open({self.outside!r}, 'w').write('1')\nimport subprocess\nsubprocess.run(['true'])\nprint('ran')")
        wait_until(lambda: os.path.exists(self.outside), what="the cell to reach the subprocess")
        self.assertTrue(os.path.exists(self.gate))
        os.remove(self.gate)
        result, _ = self.runner.collect(cid)
        self.assertEqual(result["output"], "ran\n")

    def test_a_file_moved_or_linked_into_the_tree_waits_for_the_gate(self):
        # The source is outside the tree, the destination inside: no `open` event names the tree.
        staged = os.path.join(os.path.dirname(self.tree), "staged.txt")
        with open(staged, "w") as f:
            f.write("moved in\n")
        open(self.gate, "w").close()
        code = (
            f"open({self.outside!r}, 'w').write('reached')\n"
            f"os.replace({staged!r}, 'notes.txt')\n"
            f"os.symlink({self.outside!r}, 'link.txt')\n"
            "print('moved')\n"
        )
        cid = self.send("import os\n" + code)
        wait_until(lambda: os.path.exists(self.outside), what="the cell to reach its move")
        with open(os.path.join(self.tree, "notes.txt")) as f:
            self.assertEqual(f.read(), "before\n")  # held, not yet replaced
        self.assertFalse(os.path.lexists(os.path.join(self.tree, "link.txt")))
        os.remove(self.gate)
        result, _ = self.runner.collect(cid)
        self.assertEqual(result["output"], "moved\n")
        with open(os.path.join(self.tree, "notes.txt")) as f:
            self.assertEqual(f.read(), "moved in\n")
        self.assertTrue(os.path.islink(os.path.join(self.tree, "link.txt")))

    def test_no_gate_no_hold(self):
        open(self.gate, "w").close()  # exists, but this cell was not given it
        result, _ = self.runner.collect(self.send("open('notes.txt', 'w').write('x')\nprint('ok')", gate=False))
        self.assertEqual(result["output"], "ok\n")


class InTreeTest(unittest.TestCase):
    """Which paths count as the work tree's, as arm() was given it."""

    def setUp(self):
        from relm import writegate

        self.writegate = writegate
        saved = dict(writegate._state)
        self.addCleanup(writegate._state.update, saved)

    def arm(self, tree):
        # A gate file that never exists: the hook this installs in the test process holds nothing.
        self.writegate.arm(os.path.join(temp_dir(self), "no.gate"), tree)

    def test_a_tree_holds_its_own_paths_and_not_a_neighbour_sharing_its_prefix(self):
        self.arm("/srv/p")
        self.assertTrue(self.writegate._in_tree("/srv/p"))
        self.assertTrue(self.writegate._in_tree("/srv/p/a/b"))
        self.assertFalse(self.writegate._in_tree("/srv/pq/a"))

    def test_the_root_folder_as_the_tree_holds_every_path(self):
        self.arm("/")
        self.assertTrue(self.writegate._in_tree("/etc/x"))
        self.assertTrue(self.writegate._in_tree("/"))


if __name__ == "__main__":
    unittest.main()
