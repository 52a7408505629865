"""`plan`: the task list the person watches — shown as a checklist in the UI, sent to an editor as ACP
plan updates, and counted (n/m) by `relm agents`. It only reports: nothing runs because of it."""

from .agents import _call

_MARKS = {"pending": "[ ]", "doing": "[~]", "done": "[x]"}
_MAX_STEPS = 50
_MAX_TEXT = 300


class Plan:
    """plan(["read the code", "fix the bug", "run the tests"]) sets the steps (all pending);
    plan(doing=2) marks step 2 in progress, plan(done=1) or plan(done=[1, 2]) marks steps done
    (numbers from 1); plan.add("another step") appends one; plan() returns the list as text."""

    def __init__(self):
        self._known = None  # the steps; None until asked of the host (a kernel started again has none)

    @property
    def _steps(self):
        if self._known is None:
            self._known = _host_steps()
        return self._known

    def __call__(self, steps=None, done=None, doing=None):
        if steps is not None:
            if isinstance(steps, str):
                steps = [line for line in steps.splitlines() if line.strip()]
            steps = list(steps)
            if len(steps) > _MAX_STEPS:
                raise ValueError(f"plan: at most {_MAX_STEPS} steps (got {len(steps)})")
            self._known = [{"text": str(s).strip()[:_MAX_TEXT], "status": "pending"} for s in steps]
        for number in _numbers(doing):
            self._step(number)["status"] = "doing"
        for number in _numbers(done):
            self._step(number)["status"] = "done"
        if steps is not None or done is not None or doing is not None:
            self._send()
        return self

    def add(self, text):
        if len(self._steps) >= _MAX_STEPS:
            raise ValueError(f"plan: at most {_MAX_STEPS} steps")
        self._steps.append({"text": str(text).strip()[:_MAX_TEXT], "status": "pending"})
        self._send()
        return self

    def clear(self):
        self._known = []
        self._send()
        return self

    @property
    def steps(self):
        return [dict(s) for s in self._steps]

    def _step(self, number):
        if not isinstance(number, int) or not 1 <= number <= len(self._steps):
            raise ValueError(f"plan: no step {number!r} (steps are numbered 1 to {len(self._steps)})")
        return self._steps[number - 1]

    def _send(self):
        _call("plan.set", {"steps": self._steps})

    def __repr__(self):
        if not self._steps:
            return '<plan: empty; plan(["step", ...]) sets one>'
        done = sum(1 for s in self._steps if s["status"] == "done")
        lines = [f"plan {done}/{len(self._steps)}:"]
        lines += [f"{_MARKS[s['status']]} {i}. {s['text']}" for i, s in enumerate(self._steps, 1)]
        return "\n".join(lines)


def _host_steps():
    """The list this agent's host has (set by an earlier kernel of the session), else none."""
    from . import protocol

    if not protocol.connected():
        return []
    try:
        steps = _call("plan.get", {}).get("steps") or []
    except Exception:  # noqa: BLE001 - an older host: this kernel starts the list afresh, as before
        return []
    return [{"text": str(s.get("text", "")), "status": s.get("status", "pending")} for s in steps]


def _numbers(value):
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    return list(value)


plan = Plan()
