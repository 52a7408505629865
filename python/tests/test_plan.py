"""plan() in the kernel: the task list sent whole to the host on each change (relm/plan.py)."""

import unittest

from relm.plan import Plan

from .hostpeer import HostTestCase


class PlanTests(HostTestCase):
    def setUp(self):
        super().setUp()
        self.sent = []
        self.handlers["plan.set"] = lambda params: (self.sent.append(params["steps"]), {"result": None})[1]

    def test_steps_are_set_then_marked_and_each_change_sends_the_whole_list(self):
        plan = Plan()
        plan(["read the code", "fix the bug", "run the tests"])
        plan(done=1, doing=2)
        plan.add("write the notes")
        self.assertEqual([len(s) for s in self.sent], [3, 3, 4])
        self.assertEqual(
            [s["status"] for s in self.sent[1]],
            ["done", "doing", "pending"],
        )
        self.assertEqual(
            repr(plan),
            "plan 1/4:\n[x] 1. read the code\n[~] 2. fix the bug\n[ ] 3. run the tests\n[ ] 4. write the notes",
        )

    def test_reading_it_sends_nothing_and_a_bad_step_number_says_the_range(self):
        plan = Plan()
        plan("one\ntwo\n")
        self.assertEqual([s["text"] for s in plan.steps], ["one", "two"])
        plan()
        self.assertEqual(len(self.sent), 1)
        with self.assertRaisesRegex(ValueError, "steps are numbered 1 to 2"):
            plan(done=3)


if __name__ == "__main__":
    unittest.main()
