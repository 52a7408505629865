"""The warm template: `python -m relm.template`. Forks kernels that are ready in milliseconds.

A cold kernel pays for starting Python and importing IPython (~270 ms, ~45 MB) every time. The
template pays once: it imports relm's runtime and IPython and builds the shell, then forks one child
per request. Each child starts from this pristine state (never from another kernel), talks to the
host over the host's Unix socket (relm.forked) and shares the template's memory pages until it
writes to them.

To answer quickly, the template keeps one spare child forked ahead of time (when it has been idle for
a moment): it has done the start-up a kernel can do without knowing its request, including the page
copying a first cell causes, and takes the next request over a pipe. It never ran user code, so it is
as pristine as a fresh fork. A session's own kernel is the template's first fork, and most sessions
never ask for another (no sub-agents): spares are kept only once a second kernel was asked for.

Host -> template (stdin, JSON lines): fork {id, token, socket, cwd, env, output_dir, first_count}.
Template -> host (stdout): ready {pid, python, ipython}, forked {id, pid}, error {id, error},
exit {pid, code, signal} (the host is not the kernels' parent, so it learns how they ended here).
The template exits, killing its kernels, when its stdin closes; it dies with the host (PDEATHSIG).
"""

import gc
import json
import os
import select
import signal
import sys
import threading
import time
import traceback

from . import forked, keeper, netfwd, protocol, runner

# Imported lazily by the runner or the first cell; imported here they are shared by every fork.
_WARM_IMPORTS = ("ctypes", "faulthandler", "importlib.util", "queue", "socket", "traceback")
# The spare is forked once the template has been idle this long, so that it does not compete for the
# CPU with a kernel that is starting right now (measured: back-to-back forks get slower without it).
SPARE_DELAY = 0.02
# Fork requests answered before spares are kept (a one-cell session forks once; a spare is CPU wasted).
SPARES_AFTER = 2


class Origin:
    """What a fork needs to know about the template it came from."""

    def __init__(self, fds):
        self.pid = os.getpid()
        self.cwd = os.getcwd()
        self.path0 = sys.path[0] if sys.path else None
        self.home = os.environ.get("HOME")
        self.pythonpath = os.environ.get("PYTHONPATH", "")
        # With -m, PYTHONPATH's entries follow sys.path[0], made absolute against the start directory.
        n = len(self.pythonpath.split(os.pathsep)) if self.pythonpath else 0
        self.path_entries = sys.path[1 : 1 + n]
        self.fds = fds
        self.signals = {}  # dispositions the template changed, for the child to restore


def main():
    gc.disable()  # no collections punching holes in pages the forks share; gc.freeze() before fork
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # a stray print must never corrupt the protocol
    runner._parent_death_signal()
    for name in _WARM_IMPORTS:
        __import__(name)
    engine = runner.build_engine(1)
    if engine is not None:
        # The first cell of a process imports and caches a good deal inside IPython; done here once,
        # leaving no trace (no history, no count, no variables), instead of in every kernel.
        engine.shell.run_cell("None", store_history=False)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    origin = Origin([proto_in, proto_out, wake_r, wake_w])
    origin.signals[signal.SIGCHLD] = signal.getsignal(signal.SIGCHLD)
    # A handler (not SIG_IGN, which would auto-reap and lose exit codes) that wakes the select below.
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w)
    template = Template(proto_out, engine, origin)
    template.send(
        {
            "type": "ready",
            "pid": os.getpid(),
            "python": "%d.%d.%d" % sys.version_info[:3],
            "ipython": engine.version if engine is not None else None,
            # Each fork is a keeper with the kernel below it (relm.keeper): the host ends a kernel by
            # killing the kernel's group, and a keeper with SIGTERM, never SIGKILL (it would leave
            # the kernel's detached processes behind).
            "keepers": keeper.available(),
        }
    )
    gc.freeze()
    template.serve(proto_in, wake_r)


class Template:
    def __init__(self, out_fd, engine, origin):
        self.out_fd = out_fd
        self.engine = engine
        self.origin = origin
        self.children = set()  # every live child, spare included
        self.announced = set()  # children the host knows about (and gets exit reports for)
        # (pid, write end of its pipe): a child forked ahead of time that has done all the start-up a
        # kernel can do before knowing its socket, directory and environment, and waits for them.
        self.spare = None
        self.spares = True  # off once making one failed: no retrying every SPARE_DELAY
        self.served = 0  # fork requests answered

    def send(self, msg):
        protocol.write_all(self.out_fd, (json.dumps(msg, separators=(",", ":")) + "\n").encode())

    def serve(self, in_fd, wake_r):
        buf = b""
        while True:
            timeout = SPARE_DELAY if self.wants_spare() else None
            readable, _, _ = select.select([in_fd, wake_r], [], [], timeout)
            if not readable:
                self.make_spare()
                continue
            if wake_r in readable:
                _drain(wake_r)
                self.reap()
            if in_fd in readable:
                data = os.read(in_fd, 1 << 16)
                if not data:
                    break
                *lines, buf = (buf + data).split(b"\n")
                for line in lines:
                    if line.strip():
                        try:
                            self.handle(json.loads(line))
                        except Exception:  # noqa: BLE001 - one bad line must not end the template
                            traceback.print_exc()
        self.shutdown()

    def wants_spare(self):
        """A spare is kept once two kernels were asked for: the session's own and a sub-agent's."""
        return self.spare is None and self.spares and self.served >= SPARES_AFTER

    def handle(self, msg):
        if msg.get("type") != "fork":
            return
        try:
            pid = self.hand_to_spare(msg) or self.fork(msg)
        except Exception as e:  # noqa: BLE001 - the host falls back to spawning the kernel
            self.send({"type": "error", "id": msg.get("id"), "error": f"{type(e).__name__}: {e}"})
            return
        self.announced.add(pid)
        self.served += 1
        self.send({"type": "forked", "id": msg.get("id"), "pid": pid})

    def hand_to_spare(self, msg):
        """Gives the request to the waiting spare; its pid, or None if there is none (or it died)."""
        if self.spare is None:
            return None
        pid, w = self.spare
        self.spare = None
        try:
            protocol.write_all(w, (json.dumps(msg) + "\n").encode())
        except OSError:  # BrokenPipeError: it died; reap() collects it
            return None
        finally:
            os.close(w)
        return pid

    def make_spare(self):
        try:
            r, w = os.pipe()
            pid = self.fork(None, wait_fd=r)
        except Exception:  # noqa: BLE001 - no spares: requests are forked directly
            traceback.print_exc()
            self.spares = False
            return
        os.close(r)
        self.spare = (pid, w)

    def fork(self, msg, wait_fd=None):
        # fork() copies only the calling thread: a lock held by any other thread would stay locked
        # forever in the child. The runner starts its threads after the fork.
        if threading.active_count() != 1:
            raise RuntimeError(f"the template has {threading.active_count()} threads; forking is unsafe")
        gc.freeze()  # whatever the template allocated since: never scanned (and so never copied) by forks
        pid = os.fork()
        if pid == 0:
            inherited = [self.spare[1]] if self.spare else []  # another child's pipe
            _child(msg, self.engine, self.origin, inherited, wait_fd)  # never returns
        self.children.add(pid)
        return pid

    def reap(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.children.discard(pid)
            if self.spare is not None and self.spare[0] == pid:
                os.close(self.spare[1])
                self.spare = None
            if pid not in self.announced:
                continue
            self.announced.discard(pid)
            code = os.waitstatus_to_exitcode(status)
            died = None if code >= 0 else _signal_name(-code)
            self.send({"type": "exit", "pid": pid, "code": code if died is None else None, "signal": died})

    def shutdown(self):
        """The host closed our stdin: take every kernel (and what its cells started) with us.

        Keepers get SIGTERM and end their kernel and everything below it themselves (a SIGKILL would
        leave the kernel's detached processes behind); whatever still runs after a while is killed.
        """
        keepers = keeper.available()
        self.kill_children(signal.SIGTERM if keepers else signal.SIGKILL, group=not keepers)
        self._reap_for(keeper.END_DEADLINE + 1 if keepers else 1)
        if self.children:
            self.kill_children(signal.SIGKILL, group=True)
            self._reap_for(1)
        os._exit(0)

    def _reap_for(self, seconds):
        """Reaps children until none is left or `seconds` have passed."""
        deadline = time.monotonic() + seconds
        while self.children and time.monotonic() < deadline:
            try:
                self.reap()
            except OSError:  # the host stopped reading our reports: reap on regardless
                self.announced.clear()
            if self.children:
                select.select([], [], [], 0.01)

    def kill_children(self, signum, group):
        for pid in list(self.children):
            keeper.kill(pid, signum, group)


def _child(msg, engine, origin, inherited, wait_fd):
    code = 1
    try:
        for fd in inherited:
            os.close(fd)
        forked.run(msg, engine, origin, wait_fd)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - reported on the kernel's diagnostics channel
        try:
            traceback.print_exc(file=runner._diag_file)
            runner._diag_file.flush()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


def _drain(fd):
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


if __name__ == "__main__":
    netfwd.start_beside()  # a sandbox with a network proxy: one forwarder, shared by every fork
    main()
