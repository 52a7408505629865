"""`harness` from Python: requests to the host, skills smoke-tested before saving, skill use counts."""

import os
import sys
import unittest
from unittest import mock

from relm import harness as harness_module
from relm.harness import harness

from .hostpeer import HostTestCase
from .support import temp_dir


class HarnessTests(HostTestCase):
    def test_entries_are_filtered_by_kind_and_scope(self):
        entries = [
            {"id": "m1", "kind": "memory", "scope": "session"},
            {"id": "p1", "kind": "prompt", "scope": "project"},
            {"id": "m2", "kind": "memory", "scope": "project"},
        ]
        self.handlers["harness.state"] = lambda params: {"result": {"entries": entries, "skills": []}}
        self.assertEqual([e["id"] for e in harness.entries()], ["m1", "p1", "m2"])
        self.assertEqual([e["id"] for e in harness.entries(kind="memory")], ["m1", "m2"])
        self.assertEqual([e["id"] for e in harness.entries(kind="memory", scope="project")], ["m2"])

    def test_propose_sends_only_the_fields_given(self):
        self.handlers["harness.propose"] = lambda params: {"result": {"ok": True}}
        harness.propose("tests live in test/", title="layout")
        self.assertEqual(
            self.peer.requests[0]["params"],
            {"edit": {"op": "add", "kind": "memory", "title": "layout", "content": "tests live in test/"}},
        )

    def test_a_conflict_is_a_conflict_error(self):
        self.handlers["harness.revert"] = lambda params: {"error": {"message": "r7 changed it", "code": "conflict"}}
        with self.assertRaisesRegex(harness.ConflictError, "r7 changed it"):
            harness.revert("r3")

    def test_a_skill_that_fails_its_smoke_test_is_not_saved(self):
        with self.assertRaisesRegex(ValueError, r"skill 'broken' failed its smoke test \(import broken\)"):
            harness.save_skill("broken", "does not import", "raise ImportError('missing dependency')")
        with self.assertRaisesRegex(ValueError, r"(?s)\(import adder and the test\).*AssertionError"):
            wrong = "def add(a, b):\n    return a - b\n"
            harness.save_skill("adder", "adds", wrong, test="assert adder.add(1, 2) == 3")
        with self.assertRaisesRegex(ValueError, "must be a Python module name"):
            harness.save_skill("not-a-name", "x", "x = 1")
        self.assertEqual(self.peer.requests, [])  # nothing reached the host

    def test_a_skill_named_like_a_module_python_already_has_is_refused(self):
        # Skill folders go last on the kernels' path (relm.skillpath): a skill "json" would never be what
        # `import json` gives, so saving it is refused with why rather than saved unused.
        for name, where in (
            ("json", "standard library"),
            ("sys", "built into Python"),
            ("relm", os.path.dirname(harness_module.__file__)),
        ):
            with self.assertRaisesRegex(ValueError, rf"(?s)skill name '{name}' is taken.*{where}.*another name"):
                harness.save_skill(name, "helpers", "def load(p):\n    return p\n")
        self.assertEqual(self.peer.requests, [])  # nothing reached the host

    def test_the_smoke_test_can_import_the_kernels_other_skills(self):
        # They are in RELM_SKILL_PATH, not on PYTHONPATH (relm.skillpath): the fresh process adds them too.
        folder = os.path.join(temp_dir(self), "relm_test_helper")
        os.makedirs(os.path.join(folder, "relm_test_helper"))
        with open(os.path.join(folder, "relm_test_helper", "__init__.py"), "w") as f:
            f.write("TWO = 2\n")
        patched = mock.patch.dict(os.environ, {"RELM_SKILL_PATH": folder})
        patched.start()
        self.addCleanup(patched.stop)
        self.handlers["harness.save_skill"] = lambda params: {"result": {"path": folder}}
        self.addCleanup(lambda: folder in sys.path and sys.path.remove(folder))
        test = "import relm_test_helper\nassert relm_test_helper.TWO == 2"
        harness.save_skill("relm_test_user", "uses", "X = 1\n", test=test)
        self.assertEqual(self.peer.requests[0]["params"]["name"], "relm_test_user")

    def test_a_folder_without_init_named_like_the_skill_does_not_take_the_name(self):
        # A data folder of the project (a namespace package to Python) yields to a skill's package.
        root = temp_dir(self)
        os.mkdir(os.path.join(root, "relm_test_reports"))
        sys.path.insert(0, root)
        self.addCleanup(sys.path.remove, root)
        self.handlers["harness.save_skill"] = lambda params: {"result": {"path": root}}
        harness.save_skill("relm_test_reports", "reports", "X = 1\n")
        self.assertEqual(self.peer.requests[0]["params"]["name"], "relm_test_reports")

    def test_a_skill_saved_again_under_its_own_name_is_not_taken(self):
        folder = os.path.join(temp_dir(self), "relm_test_again")
        os.makedirs(os.path.join(folder, "relm_test_again"))
        open(os.path.join(folder, "SKILL.md"), "w").close()
        with open(os.path.join(folder, "relm_test_again", "__init__.py"), "w") as f:
            f.write("X = 1\n")
        sys.path.insert(0, folder)
        self.addCleanup(lambda: folder in sys.path and sys.path.remove(folder))
        self.addCleanup(sys.modules.pop, "relm_test_again", None)
        self.handlers["harness.save_skill"] = lambda params: {"result": {"path": folder}}
        harness.save_skill("relm_test_again", "again", "X = 2\n")
        self.assertEqual(self.peer.requests[0]["params"]["code"], "X = 2\n")

    def test_a_working_skill_is_saved_and_importable_at_once(self):
        skills = temp_dir(self)

        def save(params):
            folder = os.path.join(skills, params["name"])
            os.makedirs(os.path.join(folder, params["name"]))
            with open(os.path.join(folder, params["name"], "__init__.py"), "w") as f:
                f.write(params["code"])
            return {"result": {"path": folder}}

        self.handlers["harness.save_skill"] = save
        code = "def add(a, b):\n    return a + b\n"
        reply = harness.save_skill("relm_test_adder", "adds", code, test="assert relm_test_adder.add(1, 2) == 3")
        self.addCleanup(sys.path.remove, reply["path"])
        self.addCleanup(sys.modules.pop, "relm_test_adder", None)
        self.assertEqual(
            self.peer.requests[0]["params"],
            {"name": "relm_test_adder", "description": "adds", "code": code, "scope": "session"},
        )
        import relm_test_adder

        self.assertEqual(relm_test_adder.add(2, 3), 5)

    def test_a_class_defined_in_a_cell_is_saved_from_the_cells_source(self):
        # The docstring promises a class's source is taken; for one defined in a cell (module __main__,
        # no file) inspect.getsource raised "OSError: source code not available".
        import linecache

        cell = (
            "import os\n\n"
            "class Tally:\n"
            "    def __init__(self, n=0):\n"
            "        self.n = n\n\n"
            "    def add(self, k):\n"
            "        return Tally(self.n + k)\n\n"
            "class Plain:\n"
            "    x = 1\n"
        )
        name = "<ipython-input-7-relmtest>"  # as IPython registers a cell's source
        linecache.cache[name] = (len(cell), None, cell.splitlines(keepends=True), name)
        self.addCleanup(linecache.cache.pop, name, None)
        namespace = {"__name__": "__main__"}
        exec(compile(cell, name, "exec"), namespace)
        self.handlers["harness.save_skill"] = lambda params: {"result": {"path": temp_dir(self)}}
        harness.save_skill("relm_test_tally", "counts", namespace["Tally"], test="assert relm_test_tally.Tally(1).add(2).n == 3")
        self.addCleanup(sys.modules.pop, "relm_test_tally", None)
        self.assertEqual(
            self.peer.requests[0]["params"]["code"],
            "class Tally:\n    def __init__(self, n=0):\n        self.n = n\n\n    def add(self, k):\n        return Tally(self.n + k)\n",
        )
        # A class whose source cannot be found says so and what to pass instead.
        with self.assertRaisesRegex(ValueError, "the source of Plain cannot be found.*pass the package's source as a string"):
            harness.save_skill("relm_test_plain", "plain", namespace["Plain"])

    def test_the_first_import_of_a_skill_counts_one_use(self):
        folder = os.path.join(temp_dir(self), "word-count")
        os.mkdir(folder)
        open(os.path.join(folder, "SKILL.md"), "w").close()
        with open(os.path.join(folder, "word_count.py"), "w") as f:
            f.write("def count(text):\n    return len(text.split())\n")
        sys.path.insert(0, folder)
        self.addCleanup(sys.path.remove, folder)
        watcher = harness_module._SkillImports()
        sys.meta_path.insert(0, watcher)
        self.addCleanup(sys.meta_path.remove, watcher)
        self.addCleanup(sys.modules.pop, "word_count", None)
        # The host failing to count must not break the import.
        self.handlers["harness.used"] = lambda params: {"error": {"message": "host busy"}}
        import word_count

        sys.modules.pop("word_count")
        import word_count  # noqa: F811 - imported again on purpose

        self.assertEqual(word_count.count("a b c"), 3)
        used = [(r["method"], r["params"]) for r in self.peer.requests]
        self.assertEqual(used, [("harness.used", {"skill": "word_count"})])


if __name__ == "__main__":
    unittest.main()
