"""Shared helpers: a real runner process driven over its JSON-lines protocol, and condition waits."""

import importlib.util
import itertools
import json
import os
import queue
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_IPYTHON = importlib.util.find_spec("IPython") is not None
NO_IPYTHON = "IPython is not installed for this interpreter (the plain-exec engine is tested instead)"
TIMEOUT = 30.0  # generous: these tests share the CPUs with the rest of `npm test`


def wait_until(probe, timeout=TIMEOUT, interval=0.01, what="condition"):
    """Polls `probe` until it returns a truthy value, which is returned; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


def kernel_env(engine):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    env["RELM_KERNEL_ENGINE"] = engine
    env.pop("MPLBACKEND", None)
    return env


def temp_dir(test):
    """A fresh directory removed when `test` (a TestCase or its class) is cleaned up."""
    path = tempfile.mkdtemp(prefix="relm-pytest-")
    adder = test.addClassCleanup if isinstance(test, type) else test.addCleanup
    adder(shutil.rmtree, path, True)
    return path


class Runner:
    """`python -m relm.runner` in its own process group, spoken to as the host speaks to it."""

    _ids = itertools.count(1)

    def __init__(self, engine="plain", output_dir=None, first_count=None, cwd=None, env=None):
        args = [sys.executable, "-m", "relm.runner"]
        if output_dir:
            args += ["--output-dir", output_dir]
        if first_count is not None:
            args += ["--first-count", str(first_count)]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**kernel_env(engine), **(env or {})},
            cwd=cwd or tempfile.gettempdir(),
            start_new_session=True,  # like the host: the runner leads its own group
        )
        self.messages = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.ready = self.expect("ready")

    @property
    def pid(self):
        """The kernel's pid and process group (on Linux the child of a keeper, which is `proc`)."""
        return self.ready["pid"]

    @property
    def keeper_pid(self):
        """The process started here: the kernel's keeper on Linux (relm.keeper), else the kernel itself."""
        return self.proc.pid

    def _read(self):
        for line in self.proc.stdout:
            self.messages.put(json.loads(line))
        self.messages.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, msg):
        self.send_raw((json.dumps(msg) + "\n").encode())

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next(self, timeout=TIMEOUT):
        try:
            msg = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the runner in {timeout} s; stderr:\n{''.join(self.stderr)}")
        if msg is None:
            self.messages.put(None)
            raise AssertionError(f"the runner closed its protocol; stderr:\n{''.join(self.stderr)}")
        return msg

    def expect(self, kind, timeout=TIMEOUT):
        msg = self.next(timeout)
        if msg.get("type") != kind:
            raise AssertionError(f"expected a {kind!r} message, got {msg!r}")
        return msg

    def new_id(self):
        return f"t{next(self._ids)}"

    def execute(self, code, cap=None, on_request=None, on_stream=None, timeout=TIMEOUT):
        """Runs a cell; returns (result, streamed text). `on_request(method, params)` answers host
        requests with {"result": ...} or {"error": ...}; `on_stream(text)` sees live output."""
        cid = self.new_id()
        msg = {"type": "execute", "id": cid, "code": code}
        if cap is not None:
            msg["cap"] = cap
        self.send(msg)
        return self.collect(cid, on_request, on_stream, timeout)

    def collect(self, cid, on_request=None, on_stream=None, timeout=TIMEOUT):
        streamed = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.next(max(0.1, deadline - time.monotonic()))
            kind = msg.get("type")
            if kind == "stream":
                if msg["id"] != cid:
                    raise AssertionError(f"stream for another cell: {msg!r}")
                streamed.append(msg["text"])
                if on_stream is not None:
                    on_stream(msg["text"])
            elif kind == "request":
                if on_request is None:
                    raise AssertionError(f"unexpected host request {msg!r}")
                answer = on_request(msg["method"], msg["params"])
                self.send({"type": "response", "id": msg["id"], **answer})
            elif kind == "result" and msg["id"] == cid:
                return msg, "".join(streamed)
            else:
                raise AssertionError(f"unexpected message while running {cid}: {msg!r}")

    def ask(self, msg, reply):
        """Sends a non-cell message (its id filled in) and returns the `reply`-typed answer."""
        msg = {"id": self.new_id(), **msg}
        self.send(msg)
        answer = self.expect(reply)
        if answer.get("id") != msg["id"]:
            raise AssertionError(f"answer for another request: {answer!r}")
        return answer

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # EOF: the runner kills its group and exits
            except OSError:
                pass
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                for group in (self.pid, self.proc.pid):  # the kernel's group, then its keeper's
                    try:
                        os.killpg(group, signal.SIGKILL)
                    except OSError:
                        pass
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


def parent_of(pid):
    """`pid`'s parent, from /proc (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def in_group(pgid, name):
    """Pids of live processes called `name` (/proc's comm) in process group `pgid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        state, _ppid, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
        if comm == name and int(pgrp) == pgid and state != "Z":
            found.append(int(entry))
    return found


def alive(pid):
    """True while `pid` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2] != "Z"
    except OSError:
        return False


def read_pid(path):
    """The pid a test's process wrote to `path`, or None while it has not (for wait_until)."""
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def kill_quietly(pid):
    """SIGKILL to `pid` if it still exists (a cleanup)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def png_bytes():
    """A valid 1x1 PNG."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


class InDir(unittest.TestCase):
    """A test run in a temporary folder of its own, made the working directory."""

    def setUp(self):
        self.dir = temp_dir(self)
        self.old_cwd = os.getcwd()
        os.chdir(self.dir)
        self.addCleanup(os.chdir, self.old_cwd)

    def put(self, name, data):
        os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
        with open(name, "wb") as f:
            f.write(data)

    def get(self, name):
        with open(name, "rb") as f:
            return f.read()
