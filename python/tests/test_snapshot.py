"""Snapshot and restore of user variables: what survives a host restart, and what is reported instead."""

import array
import json
import os
import pickle
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


class Counted:
    """Records every time it is pickled."""

    pickled = 0

    def __init__(self, payload):
        self.payload = payload

    def __reduce__(self):
        Counted.pickled += 1
        return (Counted, (self.payload,))


class CountedDict(dict):
    """A dict that records every time it is pickled."""

    pickled = 0

    def __reduce_ex__(self, protocol):
        CountedDict.pickled += 1
        return super().__reduce_ex__(protocol)


class Declared:
    """A buffer-like object that says how big it is (as numpy arrays do), and must not be pickled."""

    nbytes = 10**9

    def __reduce__(self):
        raise AssertionError("pickled although its nbytes is over the cap")


class Expanding:
    """Small to look at, large once pickled: only the writer's cap can stop it."""

    def __init__(self, n):
        self.n = n

    def __reduce__(self):
        return (bytes, (b"x" * self.n,))


def take(directory, ns, hidden=None, exported=(), max_var=BIG, max_total=BIG, should_stop=None):
    return snapshot.take(directory, ns, hidden or {}, list(exported), max_var, max_total, should_stop)


def file_of(directory, name):
    return os.path.join(directory, snapshot.read_manifest(directory)["files"][name])


def stamp(path):
    st = os.stat(path)
    return (st.st_ino, st.st_mtime_ns)


def pkl_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".pkl") or f.endswith(".tmp"))


class SnapshotTests(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(temp_dir(self), "snap")
        snapshot._last.clear()
        snapshot._over.clear()

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
        self.assertEqual(pkl_files(self.dir), [os.path.basename(file_of(self.dir, "ok"))])

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
        self.assertEqual(reasons["huge"], "too large to snapshot (about 5,005 bytes)")
        self.assertRegex(reasons["b"], r"^too large to snapshot \(about 605 bytes; the snapshot's total cap is 1,000 bytes\)$")
        self.assertLessEqual(report["bytes"], 1000)
        self.assertEqual(len(pkl_files(self.dir)), 2)

    def test_a_value_over_the_cap_is_found_without_pickling_it(self):
        Counted.pickled = 0
        ns = {
            "declared": Declared(),  # nbytes, as numpy arrays have
            "ints": Counted(list(range(100_000, 400_000))),  # 300k ints of 5 bytes each: ~1.5 MB
            "blob": Counted(bytearray(3 * BIG)),
            "keep": Counted([1, 2]),
        }
        report = take(self.dir, ns)
        reasons = {s["name"]: s["reason"] for s in report["skipped"]}
        self.assertEqual(sorted(reasons), ["blob", "declared", "ints"])
        for name in reasons:
            self.assertRegex(reasons[name], r"^too large to snapshot \(about [\d,]+ bytes\)$")
        self.assertEqual(Counted.pickled, 1)  # only `keep`
        self.assertEqual(report["saved"], ["keep"])

    def test_a_value_that_only_grows_when_pickled_stops_at_the_cap(self):
        ns = {"sneaky": Expanding(5 * BIG), "ok": "fine"}
        report = take(self.dir, ns)
        reasons = {s["name"]: s["reason"] for s in report["skipped"]}
        self.assertEqual(reasons, {"sneaky": f"too large to snapshot (over {BIG:,} bytes)"})
        self.assertEqual(report["saved"], ["ok"])
        self.assertEqual(pkl_files(self.dir), [os.path.basename(file_of(self.dir, "ok"))])  # nothing partial

    def test_a_container_stopped_at_the_cap_is_not_pickled_again_while_unchanged(self):
        # Sampled small (a dict is sampled from its first items), pickled large: only the writer finds out.
        rows = CountedDict({i: "x" for i in range(40)})
        rows.update({i: "y" * 5000 + str(i) for i in range(40, 440)})
        ns = {"rows": rows}
        CountedDict.pickled = 0
        first = take(self.dir, ns)
        self.assertEqual(first["skipped"], [{"name": "rows", "reason": f"too large to snapshot (over {BIG:,} bytes)"}])
        self.assertEqual(CountedDict.pickled, 1)
        self.assertEqual(take(self.dir, ns)["skipped"], first["skipped"])
        self.assertEqual(CountedDict.pickled, 1)  # same object, same length: not tried again
        rows[1000] = "z"
        take(self.dir, ns)
        self.assertEqual(CountedDict.pickled, 2)

    def test_files_are_private(self):
        take(self.dir, {"secret": "s"})
        self.assertEqual(stat.S_IMODE(os.stat(self.dir).st_mode), 0o700)
        for path in (file_of(self.dir, "secret"), os.path.join(self.dir, snapshot.MANIFEST)):
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)

    def test_a_deleted_variable_leaves_the_snapshot(self):
        ns = {"keep": 1, "gone": [1]}
        take(self.dir, ns)
        gone = file_of(self.dir, "gone")
        del ns["gone"]
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["keep"])
        self.assertFalse(os.path.exists(gone))
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"keep": 1})

    def test_an_unchanged_immutable_value_is_not_written_again(self):
        ns = {"doc": "x" * 100_000, "rows": [1]}
        take(self.dir, ns)
        doc = stamp(file_of(self.dir, "doc"))
        rows = file_of(self.dir, "rows")
        ns["rows"].append(2)
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["doc", "rows"])
        self.assertEqual(stamp(file_of(self.dir, "doc")), doc)  # same file
        self.assertNotEqual(file_of(self.dir, "rows"), rows)  # written again, the old one gone
        self.assertFalse(os.path.exists(rows))
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh["rows"], [1, 2])

    def test_unchanged_mutable_values_are_checked_not_written_again(self):
        ns = {
            "buf": bytearray(b"abc" * 100_000),  # a flat buffer: its memory is hashed
            "arr": array.array("d", range(50_000)),
            "rows": [f"row {i}" for i in range(20_000)],  # large: its pickle is hashed, not written
            "small": {"a": [1, 2]},  # small: written to a scratch file and dropped when the same
        }
        take(self.dir, ns)
        before = {name: stamp(file_of(self.dir, name)) for name in ns}
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], list(ns))
        self.assertEqual({name: stamp(file_of(self.dir, name)) for name in ns}, before)
        self.assertEqual(len(pkl_files(self.dir)), 4)
        ns["buf"][0] = ord("z")
        ns["arr"][-1] = -1.0
        ns["rows"][10_000] = "changed"
        ns["small"]["a"].append(3)
        take(self.dir, ns)
        for name in ns:
            self.assertNotEqual(stamp(file_of(self.dir, name)), before[name], name)
        self.assertEqual(len(pkl_files(self.dir)), 4)
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, ns)

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

    def test_a_variable_rebound_between_kinds_is_saved_as_it_is_now(self):
        ns = {"x": [1, 2]}
        for value in (None, "text", [3], None, 7):
            ns["x"] = value
            take(self.dir, ns)
            fresh = {}
            snapshot.restore(self.dir, fresh)
            self.assertEqual(fresh, {"x": value})

    def test_a_round_that_gives_way_leaves_the_last_snapshot_as_it_was(self):
        ns = {"a": [1] * 10, "b": "kept"}
        take(self.dir, ns)
        manifest = snapshot.read_manifest(self.dir)
        files = pkl_files(self.dir)
        ns["a"].append(2)
        ns["c"] = list(range(100_000))
        calls = []

        def stop():
            calls.append(1)
            return len(calls) > 2  # a message arrives part-way through (after `a`, in `c`)

        self.assertEqual(take(self.dir, ns, should_stop=stop), {"superseded": True})
        self.assertEqual(snapshot.read_manifest(self.dir), manifest)
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"a": [1] * 10, "b": "kept"})
        # What it finished stays beside the snapshot, unlisted; nothing half-written does.
        staged = sorted(set(pkl_files(self.dir)) - set(files))
        self.assertEqual([f.split(".")[0] for f in staged], ["a"])
        self.assertFalse([f for f in pkl_files(self.dir) if f.endswith(".tmp")])
        report = take(self.dir, ns)  # the next round starts over, and takes that file as it is
        self.assertEqual(report["saved"], ["a", "b", "c"])
        self.assertEqual(report["files"]["a"], staged[0])
        self.assertEqual(report["unverified"], ["a", "b", "c"])

    def test_new_files_are_listed_until_the_host_has_checked_them(self):
        ns = {"a": [1], "b": "two"}
        report = take(self.dir, ns)
        self.assertEqual(report["unverified"], ["a", "b"])
        self.assertEqual(take(self.dir, ns)["unverified"], ["a", "b"])  # nobody checked them yet
        manifest = snapshot.read_manifest(self.dir)
        manifest["unverified"] = []  # what the host writes back once it has read them
        with open(os.path.join(self.dir, snapshot.MANIFEST), "w") as f:
            json.dump(manifest, f)
        self.assertEqual(take(self.dir, ns)["unverified"], [])
        ns["a"].append(2)
        self.assertEqual(take(self.dir, ns)["unverified"], ["a"])

    def test_a_value_the_host_found_a_secret_in_is_not_written_again_until_it_changes(self):
        ns = {"key": "sk-" + "k" * 40, "config": {"token": "t" * 30}}
        report = take(self.dir, ns)
        # The host found secrets in both files: it deletes them and lists the variables as skipped.
        secret = {name: report["digests"][name] for name in ("key", "config")}
        for name in secret:
            os.unlink(file_of(self.dir, name))
        reason = "holds a secret value (an API key or token): not saved"
        manifest = {
            **report,
            "saved": [],
            "files": {},
            "digests": {},
            "unverified": [],
            "secret": secret,
            "skipped": [{"name": n, "reason": reason} for n in secret],
        }
        with open(os.path.join(self.dir, snapshot.MANIFEST), "w") as f:
            json.dump(manifest, f)
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], [])
        self.assertEqual(report["skipped"], [{"name": n, "reason": reason} for n in secret])
        self.assertEqual(report["secret"], secret)
        self.assertEqual(pkl_files(self.dir), [])
        ns["config"] = {"token": None}
        report = take(self.dir, ns)
        self.assertEqual(report["saved"], ["config"])
        self.assertEqual(report["unverified"], ["config"])
        self.assertEqual([s["name"] for s in report["skipped"]], ["key"])

    def test_unloadable_files_are_reported_as_failed(self):
        take(self.dir, {"good": 1, "bad": 2})
        with open(file_of(self.dir, "bad"), "wb") as f:
            f.write(b"not a pickle")
        fresh = {}
        report = snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"good": 1})
        self.assertEqual([f["name"] for f in report["failed"]], ["bad"])
        self.assertIn("UnpicklingError", report["failed"][0]["reason"])

    def test_a_fifo_at_a_value_file_is_said_to_be_no_regular_file_without_waiting(self):
        # A cell can write the snapshot folder: a FIFO there held the restore in open() until the 5 s
        # unpickling limit, which then blamed the unpickling.
        take(self.dir, {"good": 1, "pipe": 2})
        os.unlink(file_of(self.dir, "pipe"))
        os.mkfifo(file_of(self.dir, "pipe"))
        fresh = {}
        report = snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"good": 1})
        self.assertEqual(report["failed"], [{"name": "pipe", "reason": "its file is not a regular file (a FIFO, a device): not restored"}])

    def test_a_snapshot_written_by_an_older_relm_still_restores(self):
        os.makedirs(self.dir)
        with open(os.path.join(self.dir, "old.pkl"), "wb") as f:
            pickle.dump({"v": 1}, f)
        with open(os.path.join(self.dir, snapshot.MANIFEST), "w") as f:
            json.dump({"saved": ["old"], "skipped": [], "bytes": 10}, f)
        fresh = {}
        snapshot.restore(self.dir, fresh)
        self.assertEqual(fresh, {"old": {"v": 1}})
        take(self.dir, fresh)  # written again in today's form; the old file goes
        self.assertFalse(os.path.exists(os.path.join(self.dir, "old.pkl")))
        self.assertEqual(snapshot.read_manifest(self.dir)["saved"], ["old"])

    def test_restore_without_a_snapshot_restores_nothing(self):
        self.assertEqual(snapshot.restore(self.dir, {}), {"restored": [], "failed": [], "skipped": []})

    def test_the_manifest_is_json_naming_what_was_saved(self):
        report = take(self.dir, {"a": 1, "lock": threading.Lock()})
        with open(os.path.join(self.dir, snapshot.MANIFEST)) as f:
            self.assertEqual(json.load(f), report)


if __name__ == "__main__":
    unittest.main()
