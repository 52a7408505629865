"""Variables over the snapshot's per-variable cap (relm.bigvars): written by a forked child while the
kernel goes on, adopted by the next round, written in place by a final round, and reported when over
their own cap."""

import os
import unittest

from relm import bigvars, snapshot

from .support import temp_dir, wait_until

VAR_CAP = 4096  # the per-variable cap, lowered (as through config.json) so a small list is "large"
TOTAL_CAP = 1 << 20


def take(directory, namespace, big=1 << 20, final=False):
    return snapshot.take(directory, namespace, {}, [], VAR_CAP, TOTAL_CAP, max_big_bytes=big, final=final)


def reasons(manifest):
    return {s["name"]: s["reason"] for s in manifest["skipped"]}


class BigVariablesTest(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(temp_dir(self), "snapshot")
        self.addCleanup(bigvars.wait)

    def written(self):
        wait_until(lambda: not bigvars.running(), what="the background writer to finish")

    def test_a_large_value_is_written_in_the_background_and_adopted_next_round(self):
        ns = {"big": list(range(20_000)), "small": 7}
        first = take(self.dir, ns)
        self.assertIn("small", first["saved"])
        # Listed as saved only if the child was already done when the round came to it.
        if "big" not in first["saved"]:
            self.assertIn("being saved in the background", reasons(first)["big"])
        self.written()
        second = take(self.dir, ns)
        self.assertEqual(sorted(second["saved"]), ["big", "small"])
        self.assertIn("big", second["unverified"])  # the host checks it for secrets like any new file
        self.assertEqual(second["skipped"], [])
        self.assertLessEqual(second["bytes"], TOTAL_CAP)  # counted against its own cap, not this one
        restored = {}
        report = snapshot.restore(self.dir, restored)
        self.assertEqual(report["failed"], [])
        self.assertEqual(restored["big"], ns["big"])
        # Unchanged and the same object: adopted again, no child started.
        third = take(self.dir, ns)
        self.assertIn("big", third["saved"])
        self.assertIsNone(bigvars._child["pid"])

    def test_a_rebound_value_is_written_again_and_the_old_file_goes(self):
        ns = {"big": list(range(20_000))}
        take(self.dir, ns)
        self.written()
        take(self.dir, ns)
        old = set(os.listdir(self.dir))
        ns["big"] = list(range(1, 20_001))
        take(self.dir, ns)  # the new object: not the one the note names; a child writes it
        self.written()
        self.assertIn("big", take(self.dir, ns)["saved"])
        restored = {}
        snapshot.restore(self.dir, restored)
        self.assertEqual(restored["big"][0], 1)
        self.assertEqual(len([f for f in os.listdir(self.dir) if f.endswith(".pkl")]), 1)
        self.assertNotEqual(set(os.listdir(self.dir)), old)

    def test_a_final_round_writes_what_no_child_has(self):
        ns = {"big": list(range(20_000))}
        manifest = take(self.dir, ns, final=True)
        self.assertEqual(manifest["saved"], ["big"])
        self.assertIsNone(bigvars._child["pid"])
        restored = {}
        snapshot.restore(self.dir, restored)
        self.assertEqual(restored["big"], ns["big"])

    def test_over_the_cap_of_large_values_it_is_skipped_and_says_which_cap(self):
        ns = {"big": list(range(20_000))}
        manifest = take(self.dir, ns, big=8192, final=True)
        self.assertEqual(manifest["saved"], [])
        self.assertRegex(reasons(manifest)["big"], r"too large to snapshot .*snapshotMaxLargeMB")
        off = take(self.dir, ns, big=0)
        self.assertNotIn("snapshotMaxLargeMB", reasons(off)["big"])  # off: the old reason

    def test_a_note_from_another_kernel_is_not_trusted(self):
        ns = {"big": list(range(20_000))}
        take(self.dir, ns, final=True)
        wait_until(lambda: not bigvars.running())
        other = {"big": list(range(20_000))}  # another object (as in a new kernel): not the one written
        self.assertIsNone(bigvars.adoptable(self.dir, "big", other["big"], 20_000))


if __name__ == "__main__":
    unittest.main()
