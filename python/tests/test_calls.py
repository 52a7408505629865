"""Calls from Python back to the host (relm.calls, and the rlm/llm/submit/... wrappers over it),
against a fake host peer on the other end of two pipes (tests/hostpeer.py)."""

import os
import pickle
import threading
import unittest

from relm import agents, api, calls, goals, handoff, messages, schedule

from .hostpeer import HostTestCase


class CallTests(HostTestCase):
    def test_a_call_is_a_request_with_an_id_and_returns_the_result(self):
        self.handlers["echo"] = lambda params: {"result": {"got": params}}
        self.assertEqual(calls.call("echo", {"a": [1, 2]}), {"got": {"a": [1, 2]}})
        self.assertEqual(calls.call("echo"), {"got": None})
        first, second = self.peer.requests
        self.assertEqual(first, {"type": "request", "id": first["id"], "method": "echo", "params": {"a": [1, 2]}})
        self.assertNotEqual(first["id"], second["id"])

    def test_errors_become_host_errors_with_their_code(self):
        self.handlers["bad"] = lambda params: {"error": {"message": "no such child", "code": "not_found"}}
        self.handlers["plain"] = lambda params: {"error": "just text"}
        with self.assertRaises(calls.HostError) as caught:
            calls.call("bad", {})
        self.assertEqual((str(caught.exception), caught.exception.code), ("no such child", "not_found"))
        with self.assertRaises(calls.HostError) as caught:
            calls.call("plain", {})
        self.assertEqual((str(caught.exception), caught.exception.code), ("just text", None))

    def test_concurrent_callers_each_get_their_own_answer(self):
        batch = []

        def answer_all_at_once_in_reverse(msg):
            batch.append(msg)
            if len(batch) < 5:
                return []
            return [{"id": m["id"], "result": m["params"]["n"] * 10} for m in reversed(batch)]

        self.peer.respond = answer_all_at_once_in_reverse
        results = {}

        def caller(n):
            results[n] = calls.call("work", {"n": n})

        threads = [threading.Thread(target=caller, args=(n,)) for n in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        self.assertEqual(results, {n: n * 10 for n in range(5)})
        self.assertEqual(calls._pending, {})

    def test_a_response_nobody_waits_for_is_ignored(self):
        calls.resolve({"type": "response", "id": 10**9, "result": 1})
        self.handlers["ok"] = lambda params: {"result": "fine"}
        self.assertEqual(calls.call("ok"), "fine")

    def test_host_error_codes_become_the_exceptions_python_code_expects(self):
        cases = {
            "budget": agents.BudgetExceeded,
            "usage": ValueError,
            "not_found": LookupError,
            "depth": RuntimeError,
            "other": calls.HostError,
        }
        for code, expected in cases.items():
            with self.subTest(code=code):
                self.handlers["m"] = lambda params, code=code: {"error": {"message": f"said {code}", "code": code}}
                with self.assertRaises(expected) as caught:
                    agents._call("m", {})
                self.assertIn(f"said {code}", str(caught.exception))


class RlmTests(HostTestCase):
    def test_rlm_hands_variables_over_as_pickles_and_returns_the_childs_value(self):
        result_path = handoff.dump({"sum": 6}, "result")
        seen = {}

        def spawn(params):
            seen["spawn"] = params
            seen["data"] = handoff.load(params["variables"][0]["pickle"])
            return {"result": {"id": "c1", "name": "adder"}}

        self.handlers["rlm.spawn"] = spawn
        self.handlers["rlm.wait"] = lambda params: {
            "result": {"id": params["id"], "status": "done", "value": {"kind": "pickle", "path": result_path}}
        }
        self.assertEqual(agents.rlm("add these", data=[1, 2, 3]), {"sum": 6})
        self.assertEqual(self.methods(), ["rlm.spawn", "rlm.wait"])
        params = seen["spawn"]
        self.assertEqual(
            (params["task"], params["name"], params["spec"], params["model"]), ("add these", None, None, None)
        )
        variable = params["variables"][0]
        self.assertEqual(
            {k: variable[k] for k in ("name", "type", "size")}, {"name": "data", "type": "list", "size": "3 items"}
        )
        self.assertEqual(seen["data"], [1, 2, 3])
        self.assertEqual(self.peer.requests[1]["params"], {"id": "c1", "timeout": None})

    def test_json_and_text_results(self):
        self.handlers["rlm.spawn"] = lambda params: {"result": {"id": "c", "name": "n"}}
        answers = iter(
            [
                {"status": "done", "value": {"kind": "json", "value": [1, "two"]}},
                {"status": "done", "value": {"text": "final answer"}},
                {"status": "done"},
            ]
        )
        self.handlers["rlm.wait"] = lambda params: {"result": next(answers)}
        self.assertEqual(agents.rlm("a"), [1, "two"])
        self.assertEqual(agents.rlm("b"), "final answer")
        self.assertEqual(agents.rlm("c"), "")

    def test_a_failed_child_raises_child_error_with_its_last_output(self):
        self.handlers["rlm.spawn"] = lambda params: {"result": {"id": "c9", "name": "n"}}
        self.handlers["rlm.wait"] = lambda params: {
            "result": {"id": "c9", "status": "failed", "reason": "kernel crashed", "last_output": "Segfault"}
        }
        agent = agents.rlm.spawn("x")
        with self.assertRaises(agents.ChildError) as caught:
            agent.result()
        e = caught.exception
        self.assertEqual((e.id, e.reason, e.status, e.last_output), ("c9", "kernel crashed", "failed", "Segfault"))
        self.assertIn("child agent c9 failed: kernel crashed\n--- its last output ---\nSegfault", str(e))
        self.assertEqual(agent.status, "failed")  # known now: no further request
        with self.assertRaises(agents.ChildError):
            agent.result()
        self.assertEqual(self.methods(), ["rlm.spawn", "rlm.wait"])

    def test_a_budget_stop_is_budget_exceeded(self):
        self.handlers["rlm.spawn"] = lambda params: {"result": {"id": "c", "name": "n"}}
        self.handlers["rlm.wait"] = lambda params: {"result": {"id": "c", "status": "stopped", "budget": True}}
        with self.assertRaises(agents.BudgetExceeded):
            agents.rlm("x")

    def test_waiting_with_a_timeout_on_a_running_child(self):
        self.handlers["rlm.spawn"] = lambda params: {"result": {"id": "c", "name": "slow"}}
        self.handlers["rlm.wait"] = lambda params: {"result": {"id": "c", "status": "running"}}
        self.handlers["rlm.status"] = lambda params: {"result": {"status": "running"}}
        agent = agents.rlm.spawn("x", name="slow")
        with self.assertRaisesRegex(TimeoutError, r"child agent c \(slow\) is still running after 0.5 s"):
            agent.result(timeout=0.5)
        self.assertEqual(self.peer.requests[-1]["params"], {"id": "c", "timeout": 0.5})
        self.assertEqual(agent.status, "running")

    def test_a_refused_spawn_leaves_no_pickles_behind(self):
        self.handlers["rlm.spawn"] = lambda params: {"error": {"message": "depth limit", "code": "depth"}}
        with self.assertRaisesRegex(RuntimeError, "depth limit"):
            agents.rlm("x", big="x" * 1000)
        self.assertEqual(os.listdir(self.dir), [])

    def test_map_gives_each_child_its_item_and_returns_results_in_order(self):
        seen = {}

        def run_map(params):
            seen.update(params)
            items = [handoff.load(c["variables"][0]["pickle"]) for c in params["children"]]
            done = [{"status": "done", "value": {"kind": "json", "value": i * 2}} for i in items]
            return {"result": {"results": done}}

        self.handlers["rlm.map"] = run_map
        self.assertEqual(agents.rlm.map("double", [1, 2, 3], max_parallel=2, factor=2), [2, 4, 6])
        self.assertEqual([c["variables"][0]["name"] for c in seen["children"]], ["item"] * 3)
        self.assertEqual([v["name"] for v in seen["shared"]], ["factor"])
        self.assertEqual((seen["max_parallel"], seen["fail_fast"]), (2, True))

    def test_map_failures_raise_or_take_their_items_place(self):
        def run_map(params):
            return {
                "result": {
                    "results": [
                        {"status": "done", "value": {"kind": "json", "value": 1}},
                        {"id": "c2", "status": "cancelled", "reason": "cancelled"},
                        {"id": "c3", "status": "failed", "reason": "boom"},
                    ]
                }
            }

        self.handlers["rlm.map"] = run_map
        with self.assertRaises(agents.ChildError) as caught:
            agents.rlm.map("t", [1, 2, 3])
        self.assertEqual(caught.exception.id, "c3")  # the failure, not the cancellation it caused
        outcomes = agents.rlm.map("t", [1, 2, 3], return_exceptions=True)
        self.assertEqual(outcomes[0], 1)
        self.assertEqual([o.status for o in outcomes[1:]], ["cancelled", "failed"])


class ApiTests(HostTestCase):
    def test_submit_sends_json_a_repr_and_a_pickle(self):
        self.handlers["submit"] = lambda params: {"result": None}
        api.submit({"answer": 42})
        params = self.peer.requests[0]["params"]
        self.assertEqual(params["json"], {"answer": 42})
        self.assertEqual(params["repr"], "{'answer': 42}")
        with open(params["pickle"], "rb") as f:
            self.assertEqual(pickle.load(f), {"answer": 42})

    def test_submit_of_a_value_json_cannot_hold(self):
        self.handlers["submit"] = lambda params: {"result": None}
        api.submit({1, 2})
        params = self.peer.requests[0]["params"]
        self.assertNotIn("json", params)
        self.assertEqual(handoff.load(params["pickle"]), {1, 2})
        api.submit(float("nan"))  # not JSON (allow_nan=False) but picklable
        self.assertNotIn("json", self.peer.requests[1]["params"])
        with self.assertRaisesRegex(TypeError, "submit\\(\\): the value cannot be pickled"):
            api.submit(threading.Lock())
        self.assertEqual(len(self.peer.requests), 2)

    def test_a_long_repr_is_shortened(self):
        self.handlers["submit"] = lambda params: {"result": None}
        api.submit("x" * 5000)
        text = self.peer.requests[0]["params"]["repr"]
        self.assertTrue(text.endswith("... [3002 more chars]"), text[-40:])

    def test_llm_messages_schedule_and_goal_requests(self):
        self.handlers["llm"] = lambda params: {"result": {"text": f"echo {params['prompt']}"}}
        self.handlers["llm.batch"] = lambda params: {"result": {"texts": [p.upper() for p in params["prompts"]]}}
        self.handlers["msg.send"] = lambda params: {"result": {"delivered": True}}
        self.handlers["msg.inbox"] = lambda params: {"result": [{"from": "parent", "text": "hi", "time": "t"}]}
        self.handlers["schedule.add"] = lambda params: {"result": "job-1"}
        self.handlers["goal.get"] = lambda params: {"result": {"text": "ship it"}}
        self.assertEqual(agents.llm("hello"), "echo hello")
        self.assertEqual(agents.llm.batch(["a", "b"], max_parallel=1), ["A", "B"])
        self.assertEqual(messages.send("parent", 123), {"delivered": True})
        self.assertEqual(messages.inbox()[0]["text"], "hi")
        self.assertEqual(schedule.schedule("check", every="10m"), "job-1")
        self.assertEqual(goals.goal.text, "ship it")
        params = {r["method"]: r["params"] for r in self.peer.requests}
        llm_params = dict(params["llm"])
        self.assertRegex(llm_params.pop("call"), "^[0-9a-f]{16}$")  # for llm.cancel when interrupted
        self.assertEqual(llm_params, {"prompt": "hello", "model": None})
        self.assertEqual(params["msg.send"], {"to": "parent", "text": "123"})
        self.assertEqual(params["schedule.add"], {"prompt": "check", "every": "10m"})

    def test_send_checks_its_recipient_before_asking_the_host(self):
        with self.assertRaises(ValueError):
            messages.send("", "text")
        self.assertEqual(self.peer.requests, [])

    def test_input_fails_instead_of_waiting_for_nobody(self):
        with self.assertRaisesRegex(RuntimeError, "input\\(\\) is not available"):
            api._no_input("Continue? ")


if __name__ == "__main__":
    unittest.main()
