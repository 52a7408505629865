"""A kernel's first moments after the warm template (relm.template) forked it.

Turns a copy of the template into a kernel that behaves like a spawned `python -m relm.runner`:
a keeper above it (relm.keeper), its own process group and parent-death signal, the template's file
descriptors and signal handlers gone, the kernel's environment and working directory, and the protocol
on the host's Unix socket instead of stdin/stdout. Then the runner's own main loop takes over.
"""

import gc
import json
import os
import signal
import socket
import sys
import time

from . import keeper, runner


def run(msg, engine, origin, wait_fd=None):
    """Never returns (the runner exits the process). A spare (`wait_fd`) reads its request from there."""
    _detach(origin)
    if wait_fd is not None:
        if engine is not None:
            # Costs a kernel's first cell ~10 ms of copy-on-write page faults; a spare pays it ahead.
            engine.shell.run_cell("None", store_history=False)
        msg = _wait(wait_fd)
    # Diagnostics first, so anything that goes wrong from here on reaches the host.
    diag = _connect(msg, "stderr")
    os.dup2(diag.fileno(), 2)
    diag.close()
    proto = _connect(msg, "protocol")
    _environment(msg["env"])
    os.chdir(msg["cwd"])
    _paths(origin)
    if engine is not None:
        _refresh(engine, origin)
    opts = {"output_dir": msg.get("output_dir"), "first_count": int(msg.get("first_count") or 1)}
    sys.argv = [runner.__file__, "--first-count", str(opts["first_count"])]
    if opts["output_dir"]:
        sys.argv += ["--output-dir", opts["output_dir"]]
    fd = proto.detach()
    runner.serve(opts, proto=(fd, os.dup(fd)), engine=engine)


def _detach(origin):
    """Leaves the template's process group, file descriptors and signal handlers behind."""
    signal.set_wakeup_fd(-1)  # it points at the template's pipe, closed next
    for fd in origin.fds:
        os.close(fd)
    os.setpgid(0, 0)  # own group: the host's interrupts and kills reach this kernel and its cells only
    for signum, handler in origin.signals.items():
        signal.signal(signum, handler)
    # The parent is now the template, which dies with the host. Tied to the template's own pid (not
    # runner._parent_death_signal's getppid()): a template already gone would not be noticed otherwise.
    if not keeper.tie_to_parent(signal.SIGKILL, origin.pid):
        os._exit(1)  # the template died before the signal was set
    # This process becomes the kernel's keeper (relm.keeper) and the kernel goes on in a child; a spare
    # pays for that fork ahead of time too. Before gc.enable(): the keeper leaves shared pages alone.
    keeper.split()
    gc.enable()


def _wait(fd):
    """The request the template hands this spare; exits if the template closes the pipe instead."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            os._exit(0)
        data += chunk
    os.close(fd)
    return json.loads(data)


def _connect(msg, channel):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(msg["socket"])
    hello = json.dumps({"token": msg["token"], "channel": channel}) + "\n"
    sock.sendall(hello.encode())
    return sock


def _environment(env):
    """Makes os.environ exactly `env`, through putenv/unsetenv so subprocesses of cells see it too.

    Only the differences are applied: kernels usually differ from the template in a few names, and
    every page the child writes is a page it no longer shares (and, on some VMs, a costly fault).
    """
    tz = os.environ.get("TZ")
    for name in [n for n in os.environ if n not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value
    if os.environ.get("TZ") != tz:
        time.tzset()


def _paths(origin):
    """sys.path as `python -m` would have built it in this directory with this PYTHONPATH."""
    cwd = os.getcwd()
    if sys.path and sys.path[0] == origin.path0:
        sys.path[0] = cwd
    n = len(origin.path_entries)
    if sys.path[1 : 1 + n] != origin.path_entries:
        return  # changed while the template imported things; leave it alone
    pythonpath = os.environ.get("PYTHONPATH", "")
    entries = pythonpath.split(os.pathsep) if pythonpath else []
    sys.path[1 : 1 + n] = [os.path.join(cwd, e) if e else cwd for e in entries]  # join keeps absolute entries


def _refresh(engine, origin):
    """State IPython took from the template's directory and environment when it was built."""
    shell = engine.shell  # the template builds IPython's engine or none (runner.build_engine)
    try:
        from pathlib import Path

        shell.starting_dir = os.getcwd()
        shell.history_manager.dir_hist[:] = [Path.cwd()]  # %dhist, `_dh`
        if os.environ.get("HOME") != origin.home:
            from IPython.utils.path import get_home_dir

            shell.home_dir = get_home_dir()
    except Exception:  # noqa: BLE001 - cosmetic (%cd -, %dhist); never worth failing a kernel over
        pass
