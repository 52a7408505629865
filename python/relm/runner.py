"""The kernel process: `python -m relm.runner [--output-dir DIR] [--first-count N]`.

Protocol: JSON lines on the original stdin/stdout (moved to private fds at start), or on a Unix socket
for a kernel forked from the warm template (relm.template, relm.forked).
Host -> runner: execute {id, code, cap}, set_var {id, name, text|file}, variables {id},
                snapshot {id, dir, max_var_bytes?, max_total_bytes?}, restore {id, dir}, shutdown,
                response {id, result|error}, interrupt (as SIGINT to the kernel's group: for kernels that
                signals cannot reach, e.g. over ssh), file_write/file_read/file_remove (relm.transfer).
Runner -> host: ready {pid, python, ipython, scratch?, build?, unused_skills?, unused_skill_dirs?}, stream {id, text}, result {id, count, status, output,
                chars, truncated?, path?, error?, images?}, var {id, var|error}, vars {id, list|error},
                snapshot {id, report|error} (report: the manifest, or {superseded: true} when the next
                message came first; relm.snapshot), restored {id, report|error}, request {id, method, params}, file {id, ...}.
"""

if __name__ == "__main__":
    # First of all, before any thread and before the imports below: on Linux this process becomes the
    # kernel's keeper (relm.keeper) and the kernel goes on in a child. The keeper keeps only what the
    # process holds at this point, so splitting before the imports saves it the kernel's modules.
    import os as _os

    if _os.environ.get("RELM_NETFWD"):  # a sandbox with a network proxy: the forwarder forks off first
        from relm import netfwd as _netfwd

        _netfwd.start_beside()
    from relm import keeper as _keeper

    _keeper.split()

import collections
import keyword
import os
import queue
import signal
import sys
import threading
import time

from . import api, capture, calls, interrupts, keeper, protocol, skillpath, streamer, transfer, variables
from .cells import CellRunner


def main(argv):
    try:
        serve(_parse(argv))
    except Exception:
        # Once Capture has taken fd 2, Python's own report of an uncaught error would go to a pipe
        # nobody reads between cells: the host would see only an exit code. It goes to the
        # diagnostics channel (the original stderr, which the host keeps), as a fork's does.
        import traceback

        traceback.print_exc(file=_diag_file)
        _diag_file.flush()
        raise SystemExit(1) from None


def serve(opts, proto=None, engine=None):
    """Runs the kernel until the host goes away; never returns.

    `proto` is the protocol's (read fd, write fd) when it is not on fds 0/1, and `engine` an engine
    built before the process was forked: both come from the warm template (relm.template).
    """
    cap = capture.Capture(proto)  # first: nothing may reach the protocol fds before this
    protocol.connect(cap.proto_out)
    _diagnostics(cap.diag)
    stream = streamer.Streamer(protocol.send)
    cap.on_text = stream.feed
    cap.on_cell_end = stream.end
    inbox = queue.SimpleQueue()
    threading.Thread(
        target=protocol.read_loop,
        args=(cap.proto_in, lambda m: _dispatch(m, inbox), _die),
        name="relm-protocol",
        daemon=True,
    ).start()
    interrupts.install()
    _parent_death_signal()
    _scratch.append(opts.get("scratch"))
    engine = _engine(opts["first_count"], engine)
    shadowed_skills = skillpath.install()  # before api.install's import watch: checking them is no use
    exported = api.install(engine.namespace, output_dir=opts["output_dir"])
    for name in exported + ["_out"]:
        engine.hidden[name] = engine.namespace.get(name)
    cells = CellRunner(engine, cap, stream, opts["output_dir"])
    ready = {"type": "ready", "pid": os.getpid(), "python": "%d.%d.%d" % sys.version_info[:3], "ipython": engine.version}
    if opts.get("scratch"):
        ready.update(scratch=opts["scratch"], build=opts.get("build"))  # a remote kernel (relm.remote)
    if shadowed_skills:
        ready["unused_skills"] = [line for _, line in shadowed_skills]
        ready["unused_skill_dirs"] = [folder for folder, _ in shadowed_skills]
    protocol.send(ready)
    _group_watchdog()
    exported_values = [engine.namespace[n] for n in exported]
    mailbox = _Mailbox(inbox)
    _snapshots["complete"] = time.monotonic()  # a forked kernel: not the template's start
    while True:
        msg = mailbox.get()
        try:
            _handle(msg, engine, cells, exported_values, mailbox)
        except KeyboardInterrupt:
            pass  # a stray interrupt between cells; the cell itself has already been answered
        except Exception as e:  # noqa: BLE001 - a bug here must not leave the host waiting forever
            import traceback

            traceback.print_exc(file=_diag_file)
            _reply_error(msg, f"{type(e).__name__}: {e}")


class _Mailbox:
    """The host's messages in order, with a look ahead for a snapshot that must give way to them."""

    def __init__(self, inbox):
        self._inbox = inbox
        self._early = collections.deque()  # taken out of the inbox by waiting(), not yet handled

    def get(self):
        return self._early.popleft() if self._early else self._inbox.get()

    def waiting(self):
        if self._early:
            return True
        try:
            self._early.append(self._inbox.get_nowait())
        except queue.Empty:
            return False
        return True


# A snapshot gives way to the next message (relm.snapshot) once it has taken this long (a small one just
# finishes), but not for ever: once the last complete one is FORCE_SNAPSHOT_AFTER old, the next one
# finishes before the kernel reads on.
SNAPSHOT_GRACE = 0.005
FORCE_SNAPSHOT_AFTER = 30.0
_snapshots = {"complete": time.monotonic()}


def _snapshot(msg, engine, exported_values, mailbox):
    from . import snapshot

    started = time.monotonic()
    overdue = started - _snapshots["complete"] > FORCE_SNAPSHOT_AFTER
    final = bool(msg.get("final"))  # the kernel is about to be released or stopped: no giving way

    def give_way():
        return time.monotonic() - started > SNAPSHOT_GRACE and mailbox.waiting()

    report = snapshot.take(
        msg["dir"],
        engine.namespace,
        engine.hidden,
        exported_values,
        msg.get("max_var_bytes", 64 << 20),
        msg.get("max_total_bytes", 256 << 20),
        should_stop=None if overdue or final else give_way,
        max_big_bytes=msg.get("max_large_bytes", 0),
        final=final,
    )
    if not report.get("superseded"):
        _snapshots["complete"] = time.monotonic()
    protocol.send({"type": "snapshot", "id": msg["id"], "report": report})


def _handle(msg, engine, cells, exported_values, mailbox):
    kind = msg.get("type")
    if kind == "execute":
        protocol.send(cells.execute(msg))
    elif kind == "set_var":
        try:
            name, value = _load_variable(msg)
        except (ValueError, OSError, EOFError, ImportError, AttributeError) as e:  # bad input: no traceback
            protocol.send({"type": "var", "id": msg["id"], "error": str(e)})
            return
        engine.namespace[name] = value
        protocol.send({"type": "var", "id": msg["id"], "var": variables.describe_guarded(name, value)})
    elif kind == "variables":
        found = variables.user_variables(engine.namespace, engine.hidden, exported_values)
        protocol.send({"type": "vars", "id": msg["id"], "list": found})
    elif kind == "snapshot":
        _snapshot(msg, engine, exported_values, mailbox)
    elif kind == "restore":
        from . import snapshot

        protocol.send({"type": "restored", "id": msg["id"], "report": snapshot.restore(msg["dir"], engine.namespace)})


def _load_variable(msg):
    name = msg.get("name")
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"not a valid variable name: {name!r}")
    if "pickle" in msg:
        # A value handed over by another agent's kernel (rlm(..., name=value)). Unpickling runs the value's
        # own code: one that blocks would hold this kernel, before its first cell, for ever.
        # (The limit is read from variables, not snapshot: importing snapshot in every child costs ~2.5 ms.)
        from . import handoff

        try:
            with variables.time_limit(variables.VALUE_SECONDS):
                return name, handoff.load(msg["pickle"])
        except variables.TooSlow:
            raise ValueError(f"{name} took over {variables.VALUE_SECONDS:g} s to unpickle: not loaded") from None
    if "file" not in msg:
        return name, msg.get("text", "")
    # Read here, not sent over the protocol: a 20 MB file costs one read, not a JSON round trip.
    with open(msg["file"], "rb") as f:
        data = f.read()
    try:
        return name, data.decode("utf-8")
    except UnicodeDecodeError:
        return name, data


def _reply_error(msg, text):
    kinds = {"execute": "result", "set_var": "var", "variables": "vars", "snapshot": "snapshot", "restore": "restored"}
    kind = kinds.get(msg.get("type"))
    if kind is None or "id" not in msg:
        return
    reply = {"type": kind, "id": msg["id"], "error": text}
    if kind == "result":
        reply.update(status="error", count=0, output=text, chars=len(text))
        reply["error"] = {"name": "RelmError", "value": text}
    protocol.send(reply)


def _dispatch(msg, inbox):
    kind = msg.get("type")
    if kind == "response":
        calls.resolve(msg)
    elif kind == "shutdown":
        _die()
    elif kind == "interrupt":
        interrupts.request()
    elif kind in transfer.KINDS:
        transfer.handle(msg, protocol.send)
    else:
        inbox.put(msg)


def _die():
    """Host gone or asked us to stop: take the whole process group (the cell's subprocesses) with us."""
    if _scratch and _scratch[0]:
        import shutil

        shutil.rmtree(_scratch[0], ignore_errors=True)  # a remote kernel's (its keeper does it too)
    try:
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)
    finally:
        os._exit(0)


def _parent_death_signal():
    # Checked against the parent we had, not `== 1`: in a sandbox's pid namespace the living parent
    # (bubblewrap's init) is pid 1.
    if not keeper.tie_to_parent(signal.SIGKILL, os.getppid()):
        _die()


def _group_watchdog():
    """Kills the process group once this process is gone, however it went.

    PR_SET_PDEATHSIG kills the runner the moment the host dies, usually before the protocol reader
    sees EOF, and a crash (os._exit, a segfault) skips our cleanup as well; either way a cell's
    subprocesses would be orphaned. A tiny shell in the group waits on a pipe only this process
    holds (close-on-exec: a cell's subprocesses do not) and kills the group when it closes.
    """
    if os.getpgrp() != os.getpid() or not os.path.exists("/bin/sh"):
        return  # not our own group: killing it would hit whoever started us
    try:
        r, w = os.pipe()
        script = 'trap "" INT; read _ || :; kill -9 0'
        actions = [(os.POSIX_SPAWN_DUP2, r, 0)]
        os.posix_spawn("/bin/sh", ["sh", "-c", script], os.environ, file_actions=actions)
        os.close(r)
        _keep.append(w)  # never written, never closed: it closes when this process ends
    except Exception:
        pass


_keep = []
_scratch = []


def build_engine(first_count=1):
    """IPython's shell, or None for plain exec (RELM_KERNEL_ENGINE=plain, or no IPython)."""
    choice = os.environ.get("RELM_KERNEL_ENGINE", "").strip().lower()
    if choice == "plain":
        return None
    try:
        from . import engine_ipython

        return engine_ipython.create(first_count)
    except ImportError:
        if choice == "ipython":
            raise
        return None


def _engine(first_count, prebuilt=None):
    if prebuilt is not None:
        # Built by the template (counting from 1) for an identical RELM_KERNEL_ENGINE; the host checks.
        prebuilt.shell.execution_count = first_count
        engine = prebuilt
    else:
        engine = build_engine(first_count)
    if engine is None:
        from .engine_plain import PlainEngine

        return PlainEngine(first_count)
    # Plots become display() images (read back as `images`), not windows nobody can see.
    inline = _importable("matplotlib") and _importable("matplotlib_inline")
    if inline and "MPLBACKEND" not in os.environ:
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    return engine


def _importable(name):
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


_diag_file = sys.__stderr__


def _diagnostics(fd):
    """The runner's own errors go to the original stderr, which the host keeps; never to cell output."""
    global _diag_file
    _diag_file = os.fdopen(fd, "w", buffering=1, encoding="utf-8", errors="replace")
    try:
        import faulthandler

        faulthandler.enable(file=_diag_file)
    except Exception:
        pass


def _parse(argv):
    opts = {"output_dir": None, "first_count": 1}
    it = iter(argv)
    for arg in it:
        if arg == "--output-dir":
            opts["output_dir"] = next(it)
        elif arg == "--first-count":
            opts["first_count"] = int(next(it))
    return opts


if __name__ == "__main__":
    main(sys.argv[1:])
