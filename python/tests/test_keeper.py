"""The keeper (relm.keeper): processes a cell detaches never outlive its kernel, spawned or forked.

Real runners and a real template; the detached processes are `sleep`s with a unique duration, found
again by that argument in /proc/*/cmdline.
"""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import unittest

from relm import keeper

from .support import PYTHON_DIR, TIMEOUT, Runner, alive, kernel_env, parent_of, temp_dir, wait_until

NEEDS_KEEPER = "keepers need Linux (PR_SET_CHILD_SUBREAPER)"


def marker():
    """A `sleep` argument no other process has: 1000.<random digits>."""
    return f"1000.{random.randrange(10**8, 10**9)}"


def with_marker(mark):
    """Pids whose command line has the argument `mark` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if mark.encode() in args and alive(int(entry)):
            found.append(int(entry))
    return found


def ancestors(pid):
    chain = []
    while pid and pid > 1:
        pid = parent_of(pid)
        if pid:
            chain.append(pid)
    return chain


def detaching_cell(mark):
    """Starts three processes that leave the kernel's process group, in the three usual ways."""
    return (
        "import os, subprocess\n"
        f"p = subprocess.Popen(['sleep', '{mark}'], start_new_session=True)\n"
        f"os.system('setsid sleep {mark} &')\n"
        # A daemon's double fork: the middle process exits, the grandchild is orphaned at once.
        f"subprocess.run(['sh', '-c', '(setsid sleep {mark} &) ; exit 0'])\n"
        "print('started')"
    )


@unittest.skipUnless(keeper.available(), NEEDS_KEEPER)
class SpawnedKernelKeeperTests(unittest.TestCase):
    def start(self):
        runner = Runner("plain", cwd=temp_dir(self))
        self.addCleanup(runner.close)
        return runner

    def start_detached(self, runner):
        mark = marker()
        self.addCleanup(_kill_all, mark)
        result, _ = runner.execute(detaching_cell(mark))
        self.assertEqual(result["output"], "started\n")
        found = wait_until(lambda: len(with_marker(mark)) == 3 and with_marker(mark), what="three sleepers")
        return mark, found

    def test_the_kernel_runs_below_its_keeper_in_a_group_of_its_own(self):
        runner = self.start()
        self.assertNotEqual(runner.pid, runner.keeper_pid)
        self.assertEqual(parent_of(runner.pid), runner.keeper_pid)
        self.assertEqual(os.getpgid(runner.pid), runner.pid)
        self.assertEqual(os.getpgid(runner.keeper_pid), runner.keeper_pid)  # not in the kernel's group
        with open(f"/proc/{runner.keeper_pid}/comm") as f:
            self.assertEqual(f.read().strip(), "relm-keeper")

    def test_detached_processes_stay_below_the_keeper_while_the_kernel_lives(self):
        runner = self.start()
        _, found = self.start_detached(runner)
        for pid in found:
            self.assertIn(runner.keeper_pid, ancestors(pid), f"sleeper {pid} escaped the keeper")
        self.assertTrue(all(alive(pid) for pid in found))

    def test_shutdown_ends_every_detached_process(self):
        runner = self.start()
        mark, _ = self.start_detached(runner)
        runner.close()  # EOF on the protocol: the runner kills its group and exits
        wait_until(lambda: not with_marker(mark), what="the detached sleepers to end")
        self.assertIsNotNone(runner.proc.returncode)

    def test_a_crashed_kernel_takes_its_detached_processes_with_it_and_the_keeper_reports_how(self):
        runner = self.start()
        mark, _ = self.start_detached(runner)
        os.kill(runner.pid, signal.SIGKILL)
        runner.proc.wait(TIMEOUT)
        self.assertEqual(runner.proc.returncode, -signal.SIGKILL)  # the kernel's own status
        wait_until(lambda: not with_marker(mark), what="the detached sleepers to end")

    def test_a_keeper_ended_with_sigterm_ends_the_kernel_and_everything_below_it(self):
        runner = self.start()
        mark, _ = self.start_detached(runner)
        os.kill(runner.keeper_pid, signal.SIGTERM)
        runner.proc.wait(TIMEOUT)
        self.assertFalse(alive(runner.pid))
        wait_until(lambda: not with_marker(mark), what="the detached sleepers to end")

    def test_interrupts_reach_the_kernel_not_the_keeper(self):
        runner = self.start()
        code = "import time\nprint('go', flush=True)\ntime.sleep(60)"
        runner.send({"type": "execute", "id": "c1", "code": code})
        self.assertEqual(runner.expect("stream")["text"], "go\n")
        os.killpg(runner.keeper_pid, signal.SIGINT)  # the keeper's own group: ignored
        os.killpg(runner.pid, signal.SIGINT)
        result, _ = runner.collect("c1", on_stream=lambda text: None)
        self.assertEqual(result["status"], "error")
        self.assertIn("KeyboardInterrupt", result["output"])
        self.assertTrue(alive(runner.keeper_pid))

    def test_orphans_are_reaped_while_exit_statuses_of_the_cells_own_children_stay_intact(self):
        runner = self.start()
        code = (
            "import os, subprocess\n"
            "codes = []\n"
            "for _ in range(20):\n"
            # An orphan that ends at once (reaped by the keeper) next to children the cell waits for.
            "    os.system('sh -c \"true &\"')\n"
            "    codes.append(subprocess.run(['sh', '-c', 'exit 3']).returncode)\n"
            "    codes.append(os.system('exit 5') >> 8)\n"
            "print(sorted(set(codes)))"
        )
        result, _ = runner.execute(code)
        self.assertEqual(result["output"], "[3, 5]\n")
        wait_until(lambda: not _zombie_children(runner.keeper_pid), what="orphans to be reaped")


@unittest.skipUnless(keeper.available() and hasattr(socket, "AF_UNIX"), NEEDS_KEEPER)
class ForkedKernelKeeperTests(unittest.TestCase):
    """A kernel forked from the warm template: the template's child is the keeper."""

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
            stderr=subprocess.DEVNULL,
            env=kernel_env("plain"),
            start_new_session=True,
        )
        self.addCleanup(self._stop_template)
        ready = self._report()
        self.assertEqual(ready["type"], "ready")
        self.assertTrue(ready["keepers"])

    def _stop_template(self):
        if self.template.poll() is None:
            self.template.stdin.close()
            self.template.wait(TIMEOUT)
        self.template.stdout.close()

    def _report(self):
        return json.loads(self.template.stdout.readline())

    def _fork(self, n):
        request = {
            "type": "fork",
            "id": n,
            "token": f"token-{n}",
            "socket": self.socket_path,
            "cwd": self.dir,
            "env": kernel_env("plain"),
            "output_dir": None,
            "first_count": 1,
        }
        self.template.stdin.write((json.dumps(request) + "\n").encode())
        self.template.stdin.flush()
        forked = self._report()
        self.assertEqual(forked["type"], "forked")
        protocol = None
        for _ in range(2):
            conn, _ = self.listener.accept()
            conn.settimeout(TIMEOUT)
            self.addCleanup(conn.close)
            reader = conn.makefile("rb")
            self.addCleanup(reader.close)
            if json.loads(reader.readline())["channel"] == "protocol":
                protocol = (conn, reader)
        conn, reader = protocol
        ready = json.loads(reader.readline())
        self.assertEqual(parent_of(ready["pid"]), forked["pid"])
        return forked["pid"], ready["pid"], conn, reader

    def _run(self, conn, reader, code):
        conn.sendall((json.dumps({"type": "execute", "id": "c", "code": code}) + "\n").encode())
        while True:
            msg = json.loads(reader.readline())
            if msg["type"] == "result":
                return msg

    def _detach(self, conn, reader):
        mark = marker()
        self.addCleanup(_kill_all, mark)
        self.assertEqual(self._run(conn, reader, detaching_cell(mark))["output"], "started\n")
        wait_until(lambda: len(with_marker(mark)) == 3, what="three sleepers")
        return mark

    def test_a_forked_kernel_that_shuts_down_leaves_nothing_and_its_keeper_is_reported(self):
        keeper_pid, kernel, conn, reader = self._fork(1)
        mark = self._detach(conn, reader)
        conn.sendall(b'{"type":"shutdown"}\n')
        while True:
            report = self._report()
            if report["type"] == "exit" and report["pid"] == keeper_pid:
                break
        self.assertFalse(alive(kernel))
        wait_until(lambda: not with_marker(mark), what="the detached sleepers to end")

    def test_closing_the_template_ends_every_kernel_and_what_each_detached(self):
        marks = []
        for n in (1, 2):
            _, _, conn, reader = self._fork(n)
            marks.append(self._detach(conn, reader))
        self.template.stdin.close()  # what the host does when the session closes
        self.template.wait(TIMEOUT)
        for mark in marks:
            wait_until(lambda mark=mark: not with_marker(mark), what="the detached sleepers to end")


# A middle process forks a child that ties itself to the middle with SIGTERM and reports on stdout; the
# middle ends once the child has reported ("early": the child ties itself first) or at once ("late": the
# child waits until it has been re-parented, the race forked kernels and keepers guard against).
TIE_SCRIPT = """
import os, signal, sys, time
from relm import keeper
middle = os.getpid()
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    if sys.argv[1] == "late":
        while os.getppid() == middle:
            time.sleep(0.01)
    tied = keeper.tie_to_parent(signal.SIGTERM, middle)
    print(os.getpid(), "tied" if tied else "gone", flush=True)
    os.close(w)
    if tied:
        time.sleep(600)
    os._exit(0)
os.close(w)
if sys.argv[1] == "early":
    os.read(r, 1)  # EOF once the child has tied itself
"""


@unittest.skipUnless(keeper.available(), NEEDS_KEEPER)
class TieToParentTests(unittest.TestCase):
    def tie(self, when):
        proc = subprocess.Popen(
            [sys.executable, "-c", TIE_SCRIPT, when], cwd=PYTHON_DIR, stdout=subprocess.PIPE, text=True
        )
        self.addCleanup(proc.stdout.close)
        pid, answer = proc.stdout.readline().split()
        self.addCleanup(keeper.kill, int(pid), signal.SIGKILL, False)
        proc.wait(TIMEOUT)
        return int(pid), answer

    def test_a_child_tied_to_its_living_parent_gets_the_signal_when_the_parent_ends(self):
        pid, answer = self.tie("early")
        self.assertEqual(answer, "tied")
        wait_until(lambda: not alive(pid), what="the tied child to get SIGTERM")

    def test_a_parent_already_gone_is_reported_not_mistaken_for_whoever_adopted_the_child(self):
        _, answer = self.tie("late")
        self.assertEqual(answer, "gone")


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2]


def _zombie_children(pid):
    zombies = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and parent_of(int(entry)) == pid and _state(int(entry)) == "Z":
            zombies.append(int(entry))
    return zombies


def _kill_all(mark):
    for pid in with_marker(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


if __name__ == "__main__":
    unittest.main()
