"""run_tests: runs the project's tests and reads the result, so the model gets counts, the failing
names and the first failure's trace instead of pages of output."""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

from ..keeper import kill
from ._text import open_regular, public
from .runners import parse

TAIL = 4000  # chars of the raw output kept as .tail
TRACE = 3000  # chars of the first failure's trace
NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1'


class TestReport:
    """What run_tests() found: `ok` (exit 0), `passed`, `failed`, `skipped` (None when the output gave no
    count), `failures` (failing test names), `first_failure` (its trace), `exit_code`, `command`,
    `runners` (the formats recognised), `duration` (s), `tail` (the end of the output) and `output`
    (all of it)."""

    __test__ = False  # not a test class, whatever pytest thinks of the name

    def __init__(self, command, cwd, exit_code, output, duration, timed_out=False):
        parsed = parse(output)
        self.command = command
        self.cwd = cwd
        self.exit_code = exit_code
        self.timed_out = timed_out
        self.output = output
        self.duration = duration
        self.passed = parsed.passed
        self.failed = parsed.failed
        self.skipped = parsed.skipped
        self.failures = parsed.failures
        self.first_failure = parsed.first_failure[:TRACE] if parsed.first_failure else None
        self.runners = parsed.runners
        self.tail = output[-TAIL:]
        self.ok = exit_code == 0 and not timed_out

    def __repr__(self):
        state = (
            "passed" if self.ok else ("TIMED OUT" if self.timed_out else f"FAILED (exit {self.exit_code})")
        )
        counts = [
            f"{n} {w}"
            for n, w in ((self.passed, "passed"), (self.failed, "failed"), (self.skipped, "skipped"))
            if n is not None
        ]
        head = f"run_tests: {self.command} — {state} in {self.duration:.1f}s"
        if counts:
            head += ": " + ", ".join(counts)
        if self.runners:
            head += f" [{', '.join(self.runners)}]"
        out = [head]
        if self.failures:
            names = self.failures[:20]
            more = f" (and {len(self.failures) - 20} more)" if len(self.failures) > 20 else ""
            out.append("failing: " + "; ".join(names) + more)
        if self.first_failure:
            out.append("first failure:\n" + self.first_failure.rstrip())
        if not counts or (not self.ok and not self.first_failure):
            tail = self.output[-1500:].rstrip()
            out.append("last lines of the output:\n" + tail if tail else "(no output)")
        return "\n".join(out)

    def _repr_pretty_(self, p, cycle):  # its own, as Shown's (_text.py) says
        p.text(repr(self))

    def __bool__(self):
        return self.ok


@public
def run_tests(cmd=None, timeout=None, cwd=None):
    """Runs the project's tests and returns a TestReport: `.ok`, `.passed`, `.failed`, `.skipped`,
    `.failures` (names), `.first_failure` (its trace), `.tail` (end of the raw output), `.output`.

    Without `cmd` the command is found from the project (this folder or the nearest above it that has
    one): package.json's scripts.test (npm/pnpm/yarn), pytest (pyproject.toml/pytest.ini/setup.cfg/
    tox.ini/conftest.py), a Makefile `test` target, Cargo.toml, go.mod, a tests/ folder (unittest);
    else the session's gate commands. `cmd` is a shell command string (or an argument list). Output of
    pytest, unittest, vitest, jest, node --test, go test and cargo test is read. `timeout` (s) stops
    it; the cell's own time limit applies too. Runs with CI=1 and colours off.
    """
    if cwd is None:
        cwd = os.getcwd()
    if cmd is None:
        cmd, cwd = detect(cwd)
    elif isinstance(cmd, (list, tuple)):
        cmd = shlex.join(str(c) for c in cmd)
    elif not isinstance(cmd, str) or not cmd.strip():
        raise ValueError(f"cmd must be a shell command string or a list of arguments, not {cmd!r}")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0
    ):
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    env = dict(os.environ, CI="1", NO_COLOR="1", FORCE_COLOR="0", PY_COLORS="0", TERM="dumb")
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        shell=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group: a timeout or an interrupt ends every process it started
    )
    try:
        data, timed_out = _read_until_exit(proc, timeout)
    except BaseException:
        kill(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        proc.stdout.close()
    output = _clean(data.decode("utf-8", "replace"))
    return TestReport(cmd, cwd, proc.returncode, output, time.monotonic() - start, timed_out)


# How often the output loop looks whether the command has ended (a read wakes it sooner).
EXIT_CHECK = 0.05


def _read_until_exit(proc, timeout):
    """(output, timed out) of `proc`, read until it has ended (or been killed at `timeout`): not until
    every process holding its stdout has, as communicate() reads. A server or daemon the tests left
    running (in the background, or in a session of its own that a group kill does not reach) keeps the
    pipe open, and would keep the report waiting as long as it lives."""
    import selectors

    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    chunks = []
    deadline = None if timeout is None else time.monotonic() + timeout
    timed_out = False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            wait = EXIT_CHECK if deadline is None else max(0.0, min(EXIT_CHECK, deadline - time.monotonic()))
            if sel.select(wait) and not _drain(fd, chunks):
                sel.unregister(fd)  # end of file: from now on only its end (or the timeout) is waited for
            if proc.poll() is not None:
                break
            if deadline is not None and time.monotonic() >= deadline:
                timed_out = True
                kill(proc.pid, signal.SIGKILL)
                proc.wait()
                break
    _drain(fd, chunks)  # what was written before it ended is in the pipe
    proc.wait()
    return b"".join(chunks), timed_out


def _drain(fd, chunks):
    """Reads what the pipe holds now into `chunks`; False at end of file."""
    while True:
        try:
            block = os.read(fd, 1 << 16)
        except BlockingIOError:
            return True
        if not block:
            return False
        chunks.append(block)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def _clean(text):
    text = _ANSI.sub("", text)
    # A carriage return redraws a line (progress bars): keep what it was redrawn to.
    return "\n".join(
        line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r")
        for line in text.split("\n")
    )


def detect(cwd):
    """(command, folder to run it in) for the project at `cwd`; ValueError when none is found."""
    folder = os.path.abspath(cwd)
    while True:
        found = _detect_in(folder)
        if found:
            return found, folder
        if os.path.exists(os.path.join(folder, ".git")):
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    gates = _gates()
    if gates:
        return " && ".join(f"({g})" if len(gates) > 1 else g for g in gates), os.path.abspath(cwd)
    raise ValueError(
        "no test command found (no package.json test script, pytest or unittest tests, Makefile test "
        "target, Cargo.toml or go.mod, and no gate): pass one, e.g. run_tests('pytest -x tests/')"
    )


def _detect_in(folder):
    def has(name):
        return os.path.exists(os.path.join(folder, name))

    if has("package.json"):
        try:
            with open_regular(os.path.join(folder, "package.json")) as f:
                scripts = json.load(f).get("scripts") or {}
        except (OSError, ValueError, AttributeError):
            scripts = {}
        test = scripts.get("test") if isinstance(scripts, dict) else None
        if isinstance(test, str) and test.strip() and test.strip() != NPM_DEFAULT_TEST:
            if has("pnpm-lock.yaml"):
                return "pnpm test"
            if has("yarn.lock"):
                return "yarn test"
            return "npm test"
    python = shlex.quote(sys.executable)
    if _pytest_configured(folder):
        return f"{python} -m pytest -q" if _has_pytest() else "pytest -q"
    for name in ("GNUmakefile", "makefile", "Makefile"):
        if has(name) and _make_has_test(os.path.join(folder, name)):
            return "make test"
    if has("Cargo.toml"):
        return "cargo test"
    if has("go.mod"):
        return "go test -v ./..."
    for tests in ("tests", "test"):
        if os.path.isdir(os.path.join(folder, tests)) and _has_python_tests(os.path.join(folder, tests)):
            if _has_pytest():
                return f"{python} -m pytest -q {tests}"
            return f"{python} -m unittest discover -s {tests} -t ."
    return None


def _pytest_configured(folder):
    for name in ("pytest.ini", "conftest.py"):
        if os.path.exists(os.path.join(folder, name)):
            return True
    for name, marker in (
        ("pyproject.toml", "[tool.pytest"),
        ("setup.cfg", "[tool:pytest]"),
        ("tox.ini", "[pytest]"),
    ):
        if marker in _text(os.path.join(folder, name)):
            return True
    return False


def _text(path):
    """A project file's text, or "" when it cannot be read."""
    try:
        with open_regular(path) as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _has_pytest():
    import importlib.util

    return importlib.util.find_spec("pytest") is not None


def _make_has_test(path):
    return any(re.match(r"^test\s*:(?!=)", line) for line in _text(path).splitlines())


def _has_python_tests(folder):
    try:
        return any(n.startswith("test") and n.endswith(".py") for n in os.listdir(folder))
    except OSError:
        return False


def _gates():
    """The session's gate commands (relm run --gate), asked of the host; none outside a relm kernel."""
    from .. import calls, protocol

    if not protocol.connected():
        return []
    try:
        answer = calls.call("toolkit.gates", {})
    except Exception:  # noqa: BLE001 - an older host: no gates to fall back to
        return []
    gates = answer.get("gates") if isinstance(answer, dict) else None
    return [g for g in gates if isinstance(g, str) and g.strip()] if isinstance(gates, list) else []


EXPORTS = {"run_tests": run_tests}
