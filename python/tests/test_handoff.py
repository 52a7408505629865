"""Values handed between kernels as private pickle files (child inputs, submitted results)."""

import os
import stat
import threading
import unittest

from relm import handoff


class HandoffTests(unittest.TestCase):
    def setUp(self):
        from .support import temp_dir

        self.dir = temp_dir(self)
        previous = handoff._dir
        handoff.configure(self.dir)
        self.addCleanup(handoff.configure, previous)

    def test_dump_and_load_round_trip_through_a_private_file(self):
        value = {"rows": [1, 2, 3], "text": "é" * 1000, "blob": bytes(range(256))}
        path = handoff.dump(value, "test value")
        self.assertEqual(os.path.dirname(path), self.dir)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(handoff.load(path), value)
        self.assertNotEqual(handoff.dump(value, "again"), path)  # every dump is a new file

    def test_an_unpicklable_value_names_its_label(self):
        with self.assertRaises(TypeError) as caught:
            handoff.dump(threading.Lock(), "rlm: variable 'lock'")
        self.assertIn("rlm: variable 'lock' cannot be pickled (TypeError", str(caught.exception))
        self.assertEqual(os.listdir(self.dir), [])  # nothing half-written

    def test_a_value_whose_class_or_function_was_defined_in_a_cell_is_refused_by_name(self):
        # It pickled (by reference to __main__), and the child then failed to load it and ran without
        # it; its answer came back to the parent as if all was well.
        import __main__

        class Cfg:
            pass

        def helper():
            pass

        for obj in (Cfg, helper):
            obj.__module__, obj.__qualname__ = "__main__", obj.__name__
            setattr(__main__, obj.__name__, obj)
            self.addCleanup(delattr, __main__, obj.__name__)
        for value, name in ((Cfg(), "Cfg"), ({"k": [helper]}, "helper")):
            with self.subTest(name):
                with self.assertRaises(TypeError) as caught:
                    handoff.dump(value, "rlm: variable 'cfg'")
                self.assertIn(f"rlm: variable 'cfg' cannot be pickled (", str(caught.exception))
                self.assertIn(f"{name} was defined in a cell", str(caught.exception))
        self.assertEqual(os.listdir(self.dir), [])
        self.assertEqual(handoff.load(handoff.dump(os.path.join, "a module's function")), os.path.join)

    def test_a_configured_directory_that_does_not_exist_yet_is_created(self):
        handoff.configure(os.path.join(self.dir, "outputs"))
        path = handoff.dump([1], "x")
        self.assertEqual(os.path.dirname(path), os.path.join(self.dir, "outputs"))
        self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode), 0o700)

    def test_without_a_configured_directory_a_temporary_one_is_used(self):
        handoff.configure(None)
        path = handoff.dump(1, "x")
        self.addCleanup(os.unlink, path)
        self.assertTrue(os.path.basename(os.path.dirname(path)).startswith("relm-handoff-"))
        self.assertEqual(handoff.load(path), 1)

    def test_pack_variables_describes_and_pickles_each(self):
        packed = handoff.pack_variables({"data": [1, 2, 3], "name": "x"})
        self.assertEqual([p["name"] for p in packed], ["data", "name"])
        self.assertEqual(
            {k: packed[0][k] for k in ("type", "size", "preview")},
            {"type": "list", "size": "3 items", "preview": "[1, 2, 3]"},
        )
        self.assertEqual(handoff.load(packed[0]["pickle"]), [1, 2, 3])
        self.assertEqual(handoff.load(packed[1]["pickle"]), "x")

    def test_pack_variables_refuses_names_a_kernel_cannot_bind(self):
        for bad in ("class", "_private", "two words", "1st"):
            with self.subTest(name=bad):
                with self.assertRaises(ValueError) as caught:
                    handoff.pack_variables({bad: 1}, what="rlm.map")
                self.assertIn(f"rlm.map: {bad!r} cannot be a variable name", str(caught.exception))

    def test_pack_variables_names_the_unpicklable_one_and_leaves_no_files(self):
        with self.assertRaises(TypeError) as caught:
            handoff.pack_variables({"ok": 1, "lock": threading.Lock()})
        self.assertIn("rlm: variable 'lock' cannot be pickled", str(caught.exception))
        self.assertEqual(os.listdir(self.dir), [])  # the caller never got the paths to discard
        with self.assertRaises(ValueError):
            handoff.pack_variables({"ok": 1, "_bad": 2})
        self.assertEqual(os.listdir(self.dir), [])

    def test_discard_removes_files_and_tolerates_missing_ones(self):
        packed = handoff.pack_variables({"a": 1, "b": 2})
        os.unlink(packed[0]["pickle"])
        handoff.discard(packed)
        self.assertEqual(os.listdir(self.dir), [])


if __name__ == "__main__":
    unittest.main()
