"""Snapshot and restore of user variables: what survives a host restart, and what is reported instead."""

import json
import os
import stat
import threading
import unittest

from relm import snapshot

from .support import temp_dir

BIG = 1 << 20


class Point:  # module-level: picklable by reference to tests.test_snapshot
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


def take(directory, ns, hidden=None, exported=(), max_var=BIG, max_total=BIG):
    return snapshot.take(directory, ns, hidden or {}, list(exported), max_var, max_total)


class SnapshotTests(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(temp_dir(self), "snap")
        snapshot._last.clear()

    def test_picklable_values_round_trip_into_a_new_namespace(self):
        ns = {"n": 42, "text": "héllo", "data": {"rows": [1, 2, 3]}, "p": Point(1, 2), "raw": b"\x00\xff"}
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["n", "text", "data", "p", "raw"])
        self.assertEqual(report["skipped"], [])
        self.assertGreater(report["bytes"], 0)
        fresh = {}
        restored = snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, ns)
        self.assertEqual([v["name"] for v in restored["restored"]], ["n", "text", "data", "p", "raw"])
        self.assertEqual(restored["restored"][0], {"name": "n", "type": "int", "size": "scalar", "preview": "42"})
        self.assertEqual(restored["failed"], [])

    def test_what_cannot_be_saved_is_listed_with_a_reason(self):
        ns = {"lock": threading.Lock(), "fn": lambda: 1, "cls": Point, "ok": 1}
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["ok"])
        reasons = {s["name"]: s["reason"] for s in report["skipped"]}
        self.assertEqual(reasons["lock"], "cannot be pickled (TypeError)")
        self.assertEqual(reasons["fn"], "defined by code: run its definition again")
        self.assertEqual(reasons["cls"], "defined by code: run its definition again")
        # The reasons reach a resumed session through restore().
        self.assertEqual(snapshot.restore(self.dir, {})["skipped"], report["skipped"])

    def test_kernel_names_modules_and_private_names_are_not_state(self):
        fn = object()
        ns = {"os": os, "_out": {1: "x"}, "_": 5, "submit": fn, "hidden": 3, "mine": 1}
        report = take(self.dir, ns, hidden={"hidden": 3}, exported=[fn])
        self.assertEqual(report["saved"], ["mine"])
        self.assertEqual(report["skipped"], [])

    def test_size_caps_per_variable_and_in_total(self):
        ns = {"huge": "x" * 5000, "a": "a" * 600, "b": "b" * 600, "small": 1}
        report = take(self.dir, ns, max_var=1000, max_total=1000)
        self.assertEqual(report["saved"], ["a", "small"])
        reasons = {s["name"]: s["reason"] for s in report["skipped"]}
        self.assertRegex(reasons["huge"], r"^too large to snapshot \(5,0\d\d bytes\)$")
        self.assertRegex(reasons["b"], r"^too large to snapshot \(6\d\d bytes\)$")
        self.assertLessEqual(report["bytes"], 1000)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "huge.pkl")))

    def test_files_are_private(self):
        take(self.dir, {"secret": "s"})
        self.assertEqual(stat.S_IMODE(os.stat(self.dir).st_mode), 0o700)
        for name in ("secret.pkl", snapshot.MANIFEST):
            self.assertEqual(stat.S_IMODE(os.stat(os.path.join(self.dir, name)).st_mode), 0o600)

    def test_a_deleted_variable_leaves_the_snapshot(self):
        ns = {"keep": 1, "gone": [1]}
        take(self.dir, ns)
        del ns["gone"]
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["keep"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "gone.pkl")))
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"keep": 1})

    def test_an_unchanged_immutable_value_is_not_written_again(self):
        ns = {"doc": "x" * 100_000, "rows": [1]}
        take(self.dir, ns)
        doc = os.stat(os.path.join(self.dir, "doc.pkl")).st_ino
        rows = os.stat(os.path.join(self.dir, "rows.pkl")).st_ino
        ns["rows"].append(2)
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["doc", "rows"])
        self.assertEqual(os.stat(os.path.join(self.dir, "doc.pkl")).st_ino, doc)  # same file
        self.assertNotEqual(os.stat(os.path.join(self.dir, "rows.pkl")).st_ino, rows)  # rewritten
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh["rows"], [1, 2])

    def test_a_new_value_at_a_reused_address_is_saved(self):
        # `del x; x = "..."` (or a loop rebinding x) can give the new string the freed one's id().
        ns = {}
        stale = []
        for i in range(30):
            ns.pop("x", None)
            ns["x"] = f"value-{i}" + "z" * 100
            take(self.dir, ns)
            fresh = {}
            snapshot.restore(self.dir, fresh)
            if fresh["x"] != ns["x"]:
                stale.append(i)
        self.assertEqual(stale, [])

    def test_unloadable_files_are_reported_as_failed(self):
        take(self.dir, {"good": 1, "bad": 2})
        with open(os.path.join(self.dir, "bad.pkl"), "wb") as f:
            f.write(b"not a pickle")
        fresh = {}
        report = snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"good": 1})
        self.assertEqual([f["name"] for f in report["failed"]], ["bad"])
        self.assertIn("UnpicklingError", report["failed"][0]["reason"])

    def test_restore_without_a_snapshot_restores_nothing(self):
        self.assertEqual(snapshot.restore(self.dir, {}), {"restored": [], "failed": [], "skipped": []})

    def test_the_manifest_is_json_naming_what_was_saved(self):
        report = take(self.dir, {"a": 1, "lock": threading.Lock()})
        with open(os.path.join(self.dir, snapshot.MANIFEST)) as f:
            self.assertEqual(json.load(f), report)


if __name__ == "__main__":
    unittest.main()
