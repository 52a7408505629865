"""Cells run in IPython's InteractiveShell, so `!cmd`, `%%bash`, `%cd`, magics and top-level
`await` work. The shell is built for a pipe, not a terminal: no colours, no prompts, no history
file, no completer, and results are printed without the `Out[n]:` prefix."""

import os
import select
import sys
import threading

from . import capture, display, fastcell, interrupts
from .ipython_import import interactive_shell_class


def create(first_count=1):
    InteractiveShell = interactive_shell_class()
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from traitlets.config import Config

    class RelmDisplayHook(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            display.show(format_dict)

    class RelmDisplayPublisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
            display.show(data, announce=True)

        def clear_output(self, wait=False):
            pass  # terminal escape codes would only be noise in captured text

    class RelmShell(InteractiveShell):
        relm_shell_exit = None  # IPythonEngine.shell_exit

        # `!cmd` through system_raw: the command writes straight to fds 1/2 (our capture pipe), in
        # order, instead of through a pty that turns "\n" into "\r\n".
        def system(self, cmd):
            __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
            capture.flush(sys.stdout, sys.stderr)
            before = interrupts.state.received
            self.system_raw(cmd)
            # system_raw swallows the interrupt that killed the command; the rest of the cell must
            # not run on as if nothing happened.
            if interrupts.state.received != before:
                raise KeyboardInterrupt
            # IPython itself only sets `_exit_code` and carries on: the cell would look successful.
            code = self.user_ns.get("_exit_code")
            if isinstance(code, int) and code != 0:
                self.relm_shell_exit = code

        # `x = !cmd`, `!!cmd` and `%sx`: IPython's own reads the command's pty until every process holding
        # it has closed it, so `x = !server & echo started` held the cell until its timeout (and `x = !cat`
        # read a pty nobody writes to). What the command wrote until it ended, as a %%bash cell does.
        def getoutput(self, cmd, split=True, depth=0):
            __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
            from IPython.utils.text import LSString, SList

            out = _foreground_output(self.var_expand(cmd, depth=depth + 1))
            return SList(out.splitlines()) if split else LSString(out)

        # exit(), quit() (IPython's ExitAutocall calls this) and sys.exit() end the cell, not the kernel:
        # nobody is at a prompt to end, and the session needs its kernel. IPython's terminal shell would
        # stop its loop; the base class has no ask_exit at all.
        def ask_exit(self):
            raise SystemExit

        def showtraceback(self, exc_tuple=None, filename=None, tb_offset=None, exception_only=False, running_compiled_code=False):
            etype, value = (exc_tuple or sys.exc_info())[:2]
            if exception_only and isinstance(etype, type) and issubclass(etype, SystemExit):
                # Instead of "use %tb to see the full traceback" (and a warning to use exit()).
                shown = "" if value is None or value.code is None else f": {value}"
                print(f"SystemExit{shown} (exit() and sys.exit() end the cell here; the kernel and its variables stay)", file=sys.stderr)
                return
            super().showtraceback(exc_tuple, filename, tb_offset, exception_only, running_compiled_code)

        # IPython decides this by compiling the whole cell once more (~20 us per cell); a cell
        # without these words cannot contain top-level await.
        def should_run_async(self, raw_cell, *, transformed_cell=None, preprocessing_exc_tuple=None):
            cell = raw_cell if transformed_cell is None else transformed_cell
            if "await" not in cell and "async" not in cell:
                return False
            return super().should_run_async(
                raw_cell, transformed_cell=transformed_cell, preprocessing_exc_tuple=preprocessing_exc_tuple
            )

        # IPython tokenizes every cell to look for its own syntax (~40 us of a ~120 us cell `x = 1`). A cell
        # with none of the characters that syntax needs is plain Python that its static transforms leave
        # as it is; the dynamic ones (automagic `ls`, `exit` as a call: single lines only) still run.
        _relm_transformed = None  # (raw cell, its transform) handed over by relm.fastcell

        def transform_cell(self, raw_cell):
            done, self._relm_transformed = self._relm_transformed, None
            if done is not None and done[0] is raw_cell:  # fastcell ran the transform and gave the cell back
                return done[1]
            if not fastcell.static_plain(self, raw_cell):
                return super().transform_cell(raw_cell)
            cell = raw_cell if raw_cell.endswith("\n") else raw_cell + "\n"
            if len(cell.splitlines()) == 1:  # as IPython counts lines (\r, \x0c, \u2028 too)
                with self.builtin_trap:
                    cell = self.prefilter_manager.prefilter_lines(cell) + "\n"
            return cell

        # With history off (no database, no thread writing it out) IPython still queues every cell's source
        # for the database, for ever: a leak of all the code a long session runs. `In`, `_i`, `_iN` stay.
        def init_history(self):
            super().init_history()
            history = self.history_manager
            if history.enabled:
                return
            store_inputs = history.store_inputs

            def store_without_queue(line_num, source, source_raw=None):
                store_inputs(line_num, source, source_raw)
                with history.db_input_cache_lock:
                    history.db_input_cache.clear()

            store_without_queue.relm_without_queue = True  # fastcell does the same without traitlets
            history.store_inputs = store_without_queue

        def init_virtualenv(self):
            pass  # only prints a warning about virtualenvs

        def init_display_formatter(self):
            self.display_formatter = display_formatter_class()(parent=self)
            self.configurables.append(self.display_formatter)

        # The completer imports jedi (~100 ms); nothing over the protocol completes code, so build
        # it only if something (e.g. the debugger) asks for it.
        def init_completer(self):
            pass

        @property
        def Completer(self):  # noqa: N802 - IPython's attribute name
            if "_relm_completer" not in self.__dict__:
                self.__dict__["_relm_completer"] = None
                InteractiveShell.init_completer(self)
            return self.__dict__["_relm_completer"]

        @Completer.setter
        def Completer(self, value):  # noqa: N802
            self.__dict__["_relm_completer"] = value

    import warnings

    # What run_code adds after a SystemExit: the advice to use exit(), which ends only the cell here.
    warnings.filterwarnings("ignore", message="To exit: use 'exit', 'quit', or Ctrl-D", category=UserWarning)
    config = Config()
    config.HistoryManager.enabled = False
    shell = RelmShell.instance(
        config=config,
        colors="NoColor",
        autoindent=False,
        displayhook_class=RelmDisplayHook,
        display_pub_class=RelmDisplayPublisher,
    )
    shell.display_formatter.active_types = ["text/plain", "image/png"]
    _shell_cells(shell)
    shell.execution_count = first_count
    # RELM_KERNEL_FASTCELL=0 sends every cell through run_cell (tests and benches compare the two).
    fast = os.environ.get("RELM_KERNEL_FASTCELL", "").strip() != "0"
    return IPythonEngine(shell, fast)


def _shell_cells(shell):
    """`%%bash` and `%%sh` without options run as `!cmd` does: the script writes straight to fds 1/2 (the
    capture pipe) and the cell ends when the script does. IPython's own reads the script's output from
    pipes until every process holding them has closed them, so a job started with `&` (a server) held
    the cell until its timeout, which it then reported as success. With options (`--out`, `--bg`, ...)
    IPython's own runs."""
    import shutil
    import subprocess

    magics = shell.magics_manager.magics["cell"]
    for name in ("bash", "sh"):
        own = magics.get(name)

        def run(line, cell, _name=name, _own=own):
            __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
            program = shutil.which(_name)
            if line.strip() or program is None:
                return _own(line, cell) if _own is not None else None
            capture.flush(sys.stdout, sys.stderr)
            # stdin stays /dev/null (relm.capture): a script that reads it gets end of file, not itself.
            code = subprocess.run([program, "-c", cell, _name]).returncode
            if code != 0:
                raise subprocess.CalledProcessError(code, cell)

        shell.register_magic_function(run, "cell", name)


def _foreground_output(cmd):
    """What the shell command `cmd` wrote to stdout and stderr (one pipe: in order) until it ended. A job
    it started in the background may hold the pipe for ever: once the command has ended, what is in the
    pipe is its output, and what the job writes later goes on to fd 1 (the kernel's output, the next
    cell's), as a %%bash cell's job's does."""
    import subprocess

    capture.flush(sys.stdout, sys.stderr)
    read, write = os.pipe()
    try:
        # The user's shell, as IPython's; stdin stays /dev/null (relm.capture): a read gets end of file.
        proc = subprocess.Popen(cmd, shell=True, executable=os.environ.get("SHELL"), stdout=write, stderr=write)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    ended, ended_w = os.pipe()  # closed by a thread once the command has ended
    threading.Thread(target=_close_when_done, args=(proc, ended_w), name="relm-sx-wait", daemon=True).start()
    poller = select.poll()
    poller.register(read, select.POLLIN)
    poller.register(ended, select.POLLIN)
    chunks = []
    try:
        while True:
            ready = [fd for fd, _ in poller.poll()]
            if read in ready:
                data = os.read(read, 1 << 16)
                if not data:
                    break  # every holder closed it: the usual end
                chunks.append(data)
                continue
            os.set_blocking(read, False)
            chunks.extend(iter(lambda: _read_now(read), b""))
            threading.Thread(target=_forward, args=(read,), name="relm-sx-late", daemon=True).start()
            read = None  # the thread's now
            break
    except BaseException:
        # Interrupted: the command goes too (IPython's getoutput terminates it), even one that ignores
        # SIGINT or was never sent it (a remote kernel's interrupt is a message, not a signal).
        if proc.poll() is None:
            proc.terminate()
        raise
    finally:
        os.close(ended)
        if read is not None:
            os.close(read)
    return b"".join(chunks).decode(errors="replace")


def _close_when_done(proc, fd):
    proc.wait()
    os.close(fd)


def _read_now(fd):
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return b""


def _forward(fd):
    """Copies what a background job writes to its pipe to fd 1 until it closes it (or fd 1 fails)."""
    os.set_blocking(fd, True)
    try:
        while data := os.read(fd, 1 << 16):
            while data:
                data = data[os.write(1, data) :]
    except OSError:
        pass  # fd 1 closed by a cell: the job gets a broken pipe, as it would writing there
    finally:
        os.close(fd)


def display_formatter_class():
    """IPython's DisplayFormatter whose formatters are not called while disabled.

    A displayed value goes past all ten formatters (HTML, Markdown, SVG, PDF, ...). One that is disabled
    (all but text/plain and image/png here) returns None, but only after IPython's error-catching
    decorator has bound its arguments with `inspect`: ~7 us each, a sixth of a cell `x`. The same classes,
    each with a `__call__` that returns that None at once; enabled, they run as before."""
    from IPython.core.formatters import BaseFormatter, DisplayFormatter
    from traitlets import default

    def skipping(cls):
        if cls.__call__ is not BaseFormatter.__call__:
            return cls  # its own __call__ (text/plain's) may not look at `enabled`
        base_call = cls.__call__

        def __call__(self, obj):
            return base_call(self, obj) if self.enabled else None

        return type(cls.__name__, (cls,), {"__call__": __call__, "__module__": cls.__module__, "__qualname__": cls.__qualname__})

    class RelmDisplayFormatter(DisplayFormatter):
        @default("formatters")
        def _formatters_default(self):
            built = super()._formatters_default()
            return {kind: skipping(type(f))(parent=self) for kind, f in built.items()}

    return RelmDisplayFormatter


def _without_relm_frames(shell, etype, value, tb, tb_offset=None):
    """An Esc's KeyboardInterrupt is raised in relm's SIGINT handler (relm.interrupts). IPython never
    hides the frame an exception was raised in, __tracebackhide__ or not, so the traceback is cut before
    relm's first frame: the person reads their own code. (The folder from a code object's file name:
    a remote kernel's modules come from memory and have no __file__.)"""
    # The handler must never fail: IPython 8's fallback for a failed handler raises TypeError itself,
    # and the cell would end in that instead of its interrupt. A timeout signals the kernel's group
    # again if the first interrupt is slow to end the cell, and formatting a traceback on a loaded
    # machine can take that long: further interrupts wait (interrupts.state.holding) and are dropped,
    # since this one already ends the cell.
    state = interrupts.state
    state.holding += 1
    try:
        relm_dir = os.path.dirname(_without_relm_frames.__code__.co_filename) + os.sep
        last, t = None, tb
        while t is not None and not t.tb_frame.f_code.co_filename.startswith(relm_dir):
            last, t = t, t.tb_next
        if last is not None and t is not None:
            last.tb_next = None
        # Shown here: IPython's run_code drops what a custom handler returns (other callers show []).
        stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
        shell._showtraceback(etype, value, stb)
    except Exception:
        print(f"{etype.__name__}: {value}", file=sys.stderr)
    finally:
        state.holding -= 1
        if not state.holding:
            state.pending = False


class IPythonEngine:
    def __init__(self, shell, fast=True):
        from IPython.core import release

        self.fast = fast
        self.version = release.version
        self.shell = shell
        self.namespace = shell.user_ns
        self.hidden = shell.user_ns_hidden
        shell.set_custom_exc((KeyboardInterrupt,), _without_relm_frames)

    @property
    def shell_exit(self):
        """The exit status of the cell's failing `!command`, if one failed (RelmShell.system)."""
        return self.shell.relm_shell_exit

    def run(self, code):
        """Runs one cell; returns (execution_count, error or None)."""
        self.shell.relm_shell_exit = None
        result = fastcell.run(self.shell, code) if self.fast else None
        if result is None:
            result = self.shell.run_cell(code, store_history=True)
        count = result.execution_count
        if count is None:
            count = self.shell.execution_count - 1
        error = result.error_before_exec or result.error_in_exec
        if error is None:
            return count, None
        return count, {"name": type(error).__name__, "value": str(error)}

    def next_count(self):
        return self.shell.execution_count
