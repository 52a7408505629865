"""The warm template (relm.template) and a kernel forked from it (relm.forked), spoken to as the host
does: fork requests on the template's stdin, the kernel's protocol on a Unix socket we listen on."""

import json
import os
import socket
import subprocess
import sys
import time
import unittest

from .support import HAVE_IPYTHON, TIMEOUT, kernel_env, parent_of, temp_dir

ENGINE = "ipython" if HAVE_IPYTHON else "plain"


@unittest.skipUnless(hasattr(os, "fork") and hasattr(socket, "AF_UNIX"), "forking needs POSIX fork and Unix sockets")
class TemplateTests(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(self)
        self.socket_path = os.path.join(self.dir, "host.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.socket_path)
        self.listener.listen(8)
        self.listener.settimeout(TIMEOUT)
        self.addCleanup(self.listener.close)
        self.template = subprocess.Popen(
            [sys.executable, "-m", "relm.template"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=kernel_env(ENGINE),
            start_new_session=True,
        )
        self.addCleanup(self._stop_template)
        ready = self._from_template()
        self.assertEqual(ready["type"], "ready")
        self.assertEqual(ready["ipython"] is not None, ENGINE == "ipython")
        self.keepers = ready["keepers"]

    def _stop_template(self):
        if self.template.poll() is None:
            self.template.stdin.close()  # the template exits, killing its kernels
            self.template.wait(TIMEOUT)
        self.template.stdout.close()
        self.template.stderr.close()

    def _from_template(self):
        line = self.template.stdout.readline()
        if not line:
            raise AssertionError(f"template ended: {self.template.stderr.read().decode(errors='replace')}")
        return json.loads(line)

    def _fork(self, cwd, env, token="secret-token", first_count=1):
        request = {
            "type": "fork",
            "id": "f1",
            "token": token,
            "socket": self.socket_path,
            "cwd": cwd,
            "env": env,
            "output_dir": None,
            "first_count": first_count,
        }
        self.template.stdin.write((json.dumps(request) + "\n").encode())
        self.template.stdin.flush()
        forked = self._from_template()
        self.assertEqual((forked["type"], forked["id"]), ("forked", "f1"))
        channels = {}
        while len(channels) < 2:
            conn, _ = self.listener.accept()
            conn.settimeout(TIMEOUT)
            self.addCleanup(conn.close)
            reader = conn.makefile("rb")
            self.addCleanup(reader.close)
            hello = json.loads(reader.readline())
            self.assertEqual(hello["token"], token)
            channels[hello["channel"]] = (conn, reader)
        return forked["pid"], channels

    def test_a_forked_kernel_runs_cells_in_its_own_directory_and_environment(self):
        cwd = temp_dir(self)
        env = kernel_env(ENGINE)
        env["RELM_TEST_MARK"] = "only-in-this-kernel"
        pid, channels = self._fork(cwd, env, first_count=4)
        conn, reader = channels["protocol"]
        ready = json.loads(reader.readline())
        self.assertEqual(ready["type"], "ready")
        if self.keepers:  # the template's child is the kernel's keeper; the kernel is its child
            self.assertNotEqual(ready["pid"], pid)
            self.assertEqual(parent_of(ready["pid"]), pid)
        else:
            self.assertEqual(ready["pid"], pid)
        code = (
            "import os, subprocess\n"
            "print(os.getcwd(), os.environ['RELM_TEST_MARK'], os.getpgrp() == os.getpid())\n"
            "done = subprocess.run('echo $RELM_TEST_MARK', shell=True)"
        )
        conn.sendall((json.dumps({"type": "execute", "id": "c1", "code": code}) + "\n").encode())
        while True:
            msg = json.loads(reader.readline())
            if msg["type"] == "result":
                break
        self.assertEqual(msg["status"], "ok", msg["output"])
        self.assertEqual(msg["count"], 4)
        self.assertEqual(msg["output"], f"{os.path.realpath(cwd)} only-in-this-kernel True\nonly-in-this-kernel\n")
        # The host learns how a kernel it did not spawn ended from the template.
        conn.sendall(b'{"type":"shutdown"}\n')
        while True:
            report = self._from_template()
            if report["type"] == "exit" and report["pid"] == pid:
                break
        self.assertTrue(report["code"] == 0 or report["signal"] == "SIGKILL", report)

    def test_the_template_itself_never_ran_the_kernels_cells(self):
        cwd = temp_dir(self)
        pid, channels = self._fork(cwd, kernel_env(ENGINE))
        conn, reader = channels["protocol"]
        json.loads(reader.readline())
        conn.sendall(b'{"type":"execute","id":"c1","code":"leak = 1"}\n')
        while json.loads(reader.readline())["type"] != "result":
            pass
        pid2, channels2 = self._fork(cwd, kernel_env(ENGINE))
        self.assertNotEqual(pid, pid2)
        conn2, reader2 = channels2["protocol"]
        json.loads(reader2.readline())
        conn2.sendall(b'{"type":"execute","id":"c2","code":"print(\'leak\' in globals())"}\n')
        while True:
            msg = json.loads(reader2.readline())
            if msg["type"] == "result":
                break
        self.assertEqual(msg["output"], "False\n")

    def test_a_spare_is_kept_only_once_a_second_kernel_was_asked_for(self):
        cwd = temp_dir(self)
        first, _ = self._fork(cwd, kernel_env(ENGINE))
        second, _ = self._fork(cwd, kernel_env(ENGINE))
        # The template's children: the two kernels (their keepers), and then the spare forked ahead.
        deadline = time.monotonic() + TIMEOUT
        while len(children_of(self.template.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(len(children_of(self.template.pid)), 3)
        self.assertIn(first, children_of(self.template.pid))
        self.assertIn(second, children_of(self.template.pid))


class SparePolicyTests(unittest.TestCase):
    """A one-cell session forks its own kernel and nothing else: a spare made then is CPU for nothing."""

    def test_no_spare_before_the_second_request(self):
        from relm import template

        t = template.Template(out_fd=-1, engine=None, origin=None)
        self.assertFalse(t.wants_spare())
        t.served = 1
        self.assertFalse(t.wants_spare())
        t.served = 2
        self.assertTrue(t.wants_spare())
        t.spare = (123, -1)
        self.assertFalse(t.wants_spare())  # one spare at a time


def children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and parent_of(int(entry)) == pid:
            found.append(int(entry))
    return found


if __name__ == "__main__":
    unittest.main()
