"""request() in the kernel (relm/approvals.py): what it sends the host, how the host's answers and errors
reach the cell (a Granted dict; request.Denied with who refused and why; the host's usage errors as
ValueError), and an interrupt while it waits: the cell gets KeyboardInterrupt and the host is told to
withdraw the request. Against a fake host peer on the other end of two pipes (tests/hostpeer.py)."""

import os
import signal
import threading
import time
import unittest

from relm import interrupts
from relm.approvals import Denied, Granted, request

from .hostpeer import HostTestCase


def _wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


class RequestTests(HostTestCase):
    def setUp(self):
        super().setUp()
        self.hold = False  # the host keeps approval.request unanswered (a person has not answered yet)

    def _answer(self, msg):
        if self.hold and msg["method"] == "approval.request":
            return []
        if msg["method"] == "approval.cancel":
            return [{"id": msg["id"], "result": None}]
        return super()._answer(msg)

    def sent(self, method="approval.request"):
        return [r["params"] for r in self.peer.requests if r["method"] == method]

    def test_it_sends_the_kind_reason_and_details_with_an_id_and_returns_what_was_granted(self):
        self.handlers["approval.request"] = lambda p: {
            "result": {"granted": True, "by": "ui", "scope": "once", "output": "hi\n", "exit_code": 0}
        }
        granted = request("run", "check the toolchain", cmd="echo hi")
        self.assertIsInstance(granted, Granted)
        self.assertEqual((granted["output"], granted.output, granted.exit_code), ("hi\n", "hi\n", 0))
        with self.assertRaises(AttributeError):
            granted.missing  # noqa: B018
        (params,) = self.sent()
        self.assertEqual(
            {k: v for k, v in params.items() if k != "call"},
            {"kind": "run", "reason": "check the toolchain", "cmd": "echo hi"},
        )
        self.assertRegex(params["call"], r"^[0-9a-f]{16}$")

    def test_a_path_is_expanded_and_mode_takes_to_as_its_alias(self):
        self.handlers["approval.request"] = lambda p: {"result": {"granted": True, "by": "policy"}}
        request("write", "save", path="~/report.md", content="x")
        request("mode", "install packages", to="full")
        write, mode = self.sent()
        self.assertEqual(write["path"], os.path.join(os.path.expanduser("~"), "report.md"))
        self.assertEqual((mode["mode"], "to" in mode), ("full", False))

    def test_a_refusal_by_a_person_raises_denied_naming_who_and_why(self):
        self.handlers["approval.request"] = lambda p: {
            "result": {"granted": False, "by": "mcp", "scope": "once", "note": "declined through the MCP client"}
        }
        with self.assertRaises(request.Denied) as caught:
            request("net", "fetch data", host="data.example.org", port=443)
        e = caught.exception
        self.assertIsInstance(e, PermissionError)
        self.assertIs(request.Denied, Denied)
        self.assertEqual(
            (e.kind, e.subject, e.by, e.reason), ("net", "data.example.org", "mcp", "declined through the MCP client")
        )
        self.assertEqual(
            str(e),
            "request('net') for data.example.org was denied by the user (mcp): declined through the MCP client. "
            "Do without it, or say in your answer what you would need and why.",
        )

    def test_a_refusal_by_the_policy_says_so_and_a_bare_refusal_names_the_kind(self):
        answers = iter(
            [
                {"granted": False, "by": "policy", "note": "this session runs with --approve never"},
                {"granted": False},
            ]
        )
        self.handlers["approval.request"] = lambda p: {"result": next(answers)}
        with self.assertRaises(Denied) as caught:
            request("run", "push", cmd="git push")
        self.assertEqual(
            str(caught.exception),
            "request('run') for git push was denied by the session's approval policy: this session runs "
            "with --approve never. Do without it, or say in your answer what you would need and why.",
        )
        with self.assertRaises(Denied) as caught:
            request("custom", "why not")
        self.assertEqual(caught.exception.subject, "custom")
        self.assertEqual(caught.exception.reason, "")
        self.assertIn("denied by the session's approval policy.", str(caught.exception))

    def test_the_hosts_checks_reach_the_cell_as_value_and_permission_errors(self):
        errors = iter(
            [
                {"message": 'request(): kind must be "net", "run", "write" or "mode", got "disk"', "code": "usage"},
                {"message": "request('mode'): a sub-agent's mode is fixed when it starts", "code": "sandbox"},
            ]
        )
        self.handlers["approval.request"] = lambda p: {"error": next(errors)}
        with self.assertRaisesRegex(ValueError, r'kind must be "net", "run", "write" or "mode", got "disk"'):
            request("disk", "more room")
        with self.assertRaisesRegex(PermissionError, "a sub-agent's mode is fixed"):
            request("mode", "wider", mode="full")

    def test_an_interrupt_while_waiting_raises_keyboard_interrupt_and_withdraws_the_request(self):
        previous = signal.getsignal(signal.SIGINT)
        self.addCleanup(signal.signal, signal.SIGINT, previous)
        interrupts.install()
        self.addCleanup(setattr, interrupts.state, "running", interrupts.state.running)
        interrupts.state.running = True
        self.hold = True

        def interrupt_once_asked():
            _wait_for(self.sent)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

        threading.Thread(target=interrupt_once_asked, daemon=True).start()
        with self.assertRaises(KeyboardInterrupt):
            request("run", "look around", cmd="ls /")
        (asked,) = self.sent()
        (cancel,) = _wait_for(lambda: self.sent("approval.cancel"))
        self.assertEqual(cancel, {"call": asked["call"]})


if __name__ == "__main__":
    unittest.main()
