"""Reading test runners' output: counts, failing test names and the first failure's trace.

Each reader looks for its runner's own summary lines (pytest, unittest, vitest, jest, node --test in
TAP or spec form, go test, cargo test); counts of every runner found are added up, since one command
(a Makefile, npm test) may run several.
"""

import re


class Parsed:
    def __init__(self):
        self.passed = None
        self.failed = None
        self.skipped = None
        self.failures = []
        self.first_failure = None
        self.runners = []

    def add(self, runner, passed=0, failed=0, skipped=0, failures=(), trace=None):
        self.runners.append(runner)
        self.passed = (self.passed or 0) + passed
        self.failed = (self.failed or 0) + failed
        self.skipped = (self.skipped or 0) + skipped
        for name in failures:
            if name not in self.failures:
                self.failures.append(name)
        if trace and not self.first_failure:
            self.first_failure = trace.strip("\n")


def parse(output):
    parsed = Parsed()
    lines = output.split("\n")
    for reader in (_pytest, _unittest, _vitest, _jest, _node, _go, _cargo):
        reader(lines, parsed)
    return parsed


def _counts(text, words):
    found = {}
    for n, word in re.findall(r"(\d+) (\w+)", text):
        for key, names in words.items():
            if word in names:
                found[key] = found.get(key, 0) + int(n)
    return found


def _first(pattern, lines):
    """The match of `pattern` on the first line it matches, or None."""
    return next((m for m in (re.match(pattern, ln) for ln in lines) if m), None)


def _matches(pattern, lines):
    """The match of `pattern` on each line it matches, in order."""
    return [m for m in (re.match(pattern, ln) for ln in lines) if m]


def _block(lines, start, stop, limit=60):
    """Lines from `start` until one matching the regex `stop` (not included), at most `limit`."""
    out = []
    for line in lines[start : start + limit]:
        if out and re.match(stop, line):
            break
        out.append(line)
    return "\n".join(out)


def _block_after(pattern, lines, skip, stop, limit):
    """The _block from `skip` lines after the first line matching `pattern`, or None when none does."""
    at = next((i for i, line in enumerate(lines) if re.match(pattern, line)), None)
    return None if at is None else _block(lines, at + skip, stop, limit)


# ---- pytest ----

_PYTEST_SUMMARY = re.compile(
    r"^(?:=+ )?((?:\d+ (?:failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s"
)


def _pytest(lines, p):
    summary = _first(_PYTEST_SUMMARY, reversed(lines))
    if not summary:
        return
    c = _counts(
        summary.group(1), {"passed": ("passed",), "failed": ("failed", "error", "errors"), "skipped": ("skipped",)}
    )
    names = [m.group(2) for m in _matches(r"^(FAILED|ERROR) (\S+)", lines)]
    trace = _block_after(r"^=+ (FAILURES|ERRORS) =+$", lines, 1, r"^(_{3,} .* _{3,}|=+ .* =+)$", 80)
    p.add("pytest", failures=names, trace=trace, **c)


# ---- unittest ----


def _unittest(lines, p):
    ran = None
    for i, line in enumerate(lines):
        m = re.match(r"^Ran (\d+) tests? in [\d.]+s", line)
        if m:
            ran = (int(m.group(1)), i)
    if ran is None:
        return
    total, at = ran
    verdict = next((ln for ln in lines[at + 1 : at + 4] if re.match(r"^(OK|FAILED)\b", ln)), "")
    pairs = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", verdict))
    failed = pairs.get("failures", 0) + pairs.get("errors", 0) + pairs.get("unexpected_successes", 0)
    skipped = pairs.get("skipped", 0) + pairs.get("expected_failures", 0)
    names = []
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \((.+?)\)", line)
        if not m:
            continue
        name, where = m.group(2), m.group(3)
        full = where if where.endswith("." + name) else f"{where}.{name}"
        names.append(full)
        if trace is None:
            trace = line + "\n" + _block(lines, i + 2, r"^(={20,}|-{20,})$", 80)
    p.add("unittest", max(total - failed - skipped, 0), failed, skipped, names, trace)


# ---- vitest ----


def _vitest(lines, p):
    tests = _first(r"^\s*Tests\s{2,}(.*?)(?:\((\d+)\))?\s*$", lines)
    if not tests:
        return
    c = _counts(
        tests.group(1), {"passed": ("passed",), "failed": ("failed",), "skipped": ("skipped", "todo")}
    )
    if not c:
        return
    names = []
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^\s*FAIL\s+(.+? > .+?)\s*$", line)
        if m:
            names.append(m.group(1))
            if trace is None:
                trace = _block(lines, i, r"^\s*(FAIL\s|⎯{3,})", 60)
    if not names:
        names = [m.group(1) for m in _matches(r"^\s*[×✗]\s+(.+?)(?:\s+\d+ms)?$", lines)]
    p.add("vitest", failures=names, trace=trace, **c)


# ---- jest ----


def _jest(lines, p):
    tests = _first(r"^Tests:\s+(.*)$", lines)
    if not tests:
        return
    c = _counts(
        tests.group(1),
        {"passed": ("passed",), "failed": ("failed",), "skipped": ("skipped", "todo", "pending")},
    )
    names = []
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^\s*● (.+?)\s*$", line)
        if m and m.group(1) != "Test suite failed to run" and not m.group(1).startswith("Console"):
            if m.group(1) not in names:
                names.append(m.group(1))
            if trace is None:
                trace = _block(lines, i, r"^\s*(● |Test Suites:)", 60)
    p.add("jest", failures=names, trace=trace, **c)


# ---- node --test ----


def _node(lines, p):
    """Its TAP form (`# pass 2` at the end) and its spec form (`ℹ pass 2`)."""
    for mark, failures in (("#", _tap_failures), ("ℹ", _spec_failures)):
        c = {m.group(1): int(m.group(2)) for m in _matches(rf"^{mark} (pass|fail|skipped|todo) (\d+)$", lines)}
        if "pass" in c and "fail" in c:
            names, trace = failures(lines)
            p.add("node --test", c["pass"], c["fail"], c.get("skipped", 0) + c.get("todo", 0), names, trace)


def _tap_failures(lines):
    names = []
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)not ok \d+ - (.+?)(?: # .*)?$", line)
        if not m:
            continue
        block = (
            _block(lines, i + 1, r"^\s*\.\.\.$", 40)
            if re.match(r"^\s*---$", lines[i + 1] if i + 1 < len(lines) else "")
            else ""
        )
        if "subtestsFailed" in block:
            continue  # a file or suite that failed because of its tests, which are named already
        names.append(m.group(2))
        if trace is None:
            trace = line + "\n" + block
    return names, trace


def _spec_failures(lines):
    names = []
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)✖ (.+?) \([\d.]+m?s\)\s*$", line)
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        # A suite that failed because of its tests has no error of its own under it.
        deeper = len(nxt) - len(nxt.lstrip()) > len(m.group(1)) if m else False
        if m and deeper and not re.match(r"^\s*[✖✔﹣▶ℹ]", nxt):
            if m.group(2) not in names:
                names.append(m.group(2))
            if trace is None:
                trace = _block(lines, i, r"^\s*(✖|✔|ℹ) ", 40)
    return names, trace


# ---- go test ----


def _go(lines, p):
    res = _matches(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", lines)
    if not res and not _first(r"^(ok|FAIL|---)\s+\S+\s+[\d.]+s", lines):
        return
    kinds = [m.group(1) for m in res]
    names = [m.group(2) for m in res if m.group(1) == "FAIL"]
    trace = None
    for i, line in enumerate(lines):
        m = re.match(r"^\s*--- FAIL: (\S+)", line)
        if m:
            body = []
            for nxt in lines[i + 1 : i + 40]:
                if not nxt.startswith(("    ", "\t")) or re.match(r"^\s*--- ", nxt):
                    break
                body.append(nxt)
            if not body:  # -v prints a test's messages before its verdict, after its "=== RUN"
                for k in range(i - 1, max(i - 40, -1), -1):
                    if re.match(rf"^=== (RUN|CONT)\s+{re.escape(m.group(1))}$", lines[k]):
                        body = lines[k + 1 : i]
                        break
            trace = "\n".join([line, *body])
            break
    p.add("go test", kinds.count("PASS"), kinds.count("FAIL"), kinds.count("SKIP"), names, trace)


# ---- cargo test ----


def _cargo(lines, p):
    results = _matches(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", lines)
    if not results:
        return
    passed = sum(int(m.group(1)) for m in results)
    failed = sum(int(m.group(2)) for m in results)
    ignored = sum(int(m.group(3)) for m in results)
    names = [m.group(1) for m in _matches(r"^test (\S+) \.\.\. FAILED$", lines)]
    trace = _block_after(r"^---- \S+ stdout ----$", lines, 0, r"^(---- \S+ stdout ----|failures:|test result:)$", 40)
    p.add("cargo test", passed, failed, ignored, names, trace)
