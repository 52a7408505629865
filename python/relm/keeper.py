"""The keeper: makes sure nothing a kernel's cells start outlives the kernel (Linux).

A cell can detach processes from the kernel's process group: `subprocess.Popen(..., start_new_session=True)`,
`setsid cmd`, a daemon's double fork. Killing the kernel's group misses them, and once their parent is
gone they are re-parented to init, out of anyone's reach. So a kernel process splits in two before it
runs anything: the parent becomes the keeper, a child subreaper (PR_SET_CHILD_SUBREAPER), and the child
goes on as the kernel, in a process group of its own. Every orphan below the kernel is re-parented to
the keeper instead of init; the keeper reaps them while the kernel lives and, when the kernel ends
however it ends (shutdown, crash, SIGKILL from the host), kills every process left below it, then
exits with the kernel's own status.

Why a separate process and not the kernel itself as the subreaper: a subreaper must reap the orphans
it adopts, and the kernel cannot tell an adopted orphan from a child a cell started and will wait for
(`subprocess`, `os.system`): reaping those would steal their exit status. The keeper starts no
process but the kernel, so every other child it has is an orphan, and it may reap them all.

The keeper never runs a cell, so a cell cannot change it: its /proc environment (with RELM_KERNEL,
see src/host/peer.ts) and its place as the ancestor of every process of the kernel hold for as long as
the kernel lives. It ignores SIGINT (interrupts are for the kernel's group), ends everything on SIGTERM,
and gets SIGTERM when its own parent (the host, or the warm template) dies.

Elsewhere (no subreapers) split() does nothing and the kernel runs as before, its group still killed
when it ends.
"""

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
# How long the keeper keeps killing after the kernel ended (a process stuck in the kernel, D state,
# cannot be reaped; the keeper gives up on it rather than hang).
END_DEADLINE = 5.0

_libc = None


def _prctl(option, value=0):
    global _libc
    if _libc is None:
        import ctypes

        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc.prctl(option, value, 0, 0, 0)


def tie_to_parent(signum, parent):
    """Has Linux send this process `signum` when its parent dies; False if that parent, `parent`, died
    before it took effect (this process has been re-parented already). Pass the pid the parent had, not
    a fresh os.getppid(): once the parent is gone, getppid() names whoever adopted this process.

    Elsewhere (macOS forks kernels too), or without ctypes, no signal is set and only the check is made.
    """
    if sys.platform.startswith("linux"):
        try:
            _prctl(PR_SET_PDEATHSIG, int(signum))
        except Exception:  # noqa: BLE001 - no ctypes, no libc: the check below still holds
            pass
    return os.getppid() == parent


def available():
    """True where a keeper can work: Linux with prctl reachable (asks without changing anything)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    try:
        import ctypes

        flag = ctypes.c_int(0)
        return _prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag)) == 0
    except Exception:  # noqa: BLE001 - no ctypes, no libc: run without a keeper
        return False


def split(scratch=None):
    """Forks the keeper off. Returns in the kernel (the child) with the keeper's pid, or None when there
    is no keeper (not Linux, or it could not be set up); never returns in the keeper.

    Call it before any thread starts (fork copies only the calling thread). `scratch`: a directory the
    keeper removes once the kernel has ended (a remote kernel's, relm.remote).
    """
    if not available() or _prctl(PR_SET_CHILD_SUBREAPER, 1) != 0:
        return None
    keeper = os.getpid()
    parent = os.getppid()
    try:
        pid = os.fork()
    except OSError:
        _prctl(PR_SET_CHILD_SUBREAPER, 0)
        return None
    if pid == 0:
        os.setpgid(0, 0)  # the group the host signals (interrupts, kills): the kernel and its cells
        if not tie_to_parent(signal.SIGKILL, keeper):
            os._exit(1)  # the keeper died before prctl took effect
        return keeper
    _keep(pid, parent, scratch)


def _keep(kernel, parent, scratch):
    """The keeper's whole life: reap orphans until the kernel ends, then end what is left and exit."""
    status = None
    try:
        _set_name(b"relm-keeper")  # shown by ps -o comm and top (its command line stays the kernel's)
        for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
            signal.signal(signum, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: kill(kernel, signal.SIGKILL))
        if not tie_to_parent(signal.SIGTERM, parent):
            kill(kernel, signal.SIGKILL)  # the parent died before prctl took effect: end now
        _release_fds()
        status = _wait_for(kernel)
    except BaseException:  # noqa: BLE001 - whatever happens, the keeper must not go on to run relm's code
        kill(kernel, signal.SIGKILL)
    try:
        end_all(os.getpid())  # the kernel too, if it still runs
    except BaseException:  # noqa: BLE001
        pass
    if scratch:
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)
    _exit_like(status)


def _set_name(name):
    import ctypes

    _prctl(PR_SET_NAME, ctypes.c_char_p(name))


def _release_fds():
    """Holds nothing of the kernel's: the host sees its pipes close when the kernel's copies close."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    os.closerange(3, _max_fd())


def _max_fd():
    try:
        return os.sysconf("SC_OPEN_MAX")
    except (ValueError, OSError):
        return 4096


def kill(pid, signum, group=True):
    """Sends `signum` to the process group `pid` leads and to `pid` itself (in case it has not made its
    group yet), or with group=False to `pid` alone; a process already gone is no error."""
    for target in (-pid, pid) if group else (pid,):
        try:
            os.kill(target, signum)
        except OSError:
            pass


def _wait_for(kernel):
    """Reaps every child (adopted orphans) until the kernel itself ends; returns its wait status."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return None
        if pid == kernel:
            return status


def end_all(root):
    """Kills every live descendant of `root` (this process: the kernel's group if anything of it is left,
    the adopted orphans and theirs) and reaps its children, until none is left or END_DEADLINE seconds
    have passed."""
    stop = time.monotonic() + END_DEADLINE
    while True:
        live = descendants(root)
        for pid in live:
            kill(pid, signal.SIGKILL, group=False)
        reaped = _reap()
        if not live or time.monotonic() > stop:
            return
        if not reaped:
            time.sleep(0.002)


def _reap():
    """Reaps every child that has ended; True if there was one."""
    reaped = False
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped = True


def descendants(root):
    """Live (non-zombie) descendants of `root`, read from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rindex(b")") + 2 :].split()
        if rest[0] == b"Z":
            continue
        children.setdefault(int(rest[1]), []).append(int(entry))
    found = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.append(child)
            todo.append(child)
    return found


def _exit_like(status):
    """Exits the way the kernel did, so whoever waits for the keeper learns how the kernel ended."""
    if status is None:
        os._exit(1)
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    signum = -code
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # mirroring a crash must not dump our core
    except Exception:  # noqa: BLE001
        pass
    if signum not in (signal.SIGKILL, signal.SIGSTOP):
        try:
            signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        except (OSError, ValueError):
            pass
    try:
        os.kill(os.getpid(), signum)
    except OSError:
        pass
    os._exit(128 + signum)
