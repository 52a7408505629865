"""`rlm`: child agents as Python functions.

Each child is a full agent with its own kernel and journal. Its inputs arrive as variables in its
kernel (pickled here, loaded there), never pasted into its prompt; its result comes back as a Python
value: what it passed to submit(), else its final text.
"""

import asyncio
import os

from . import calls, handoff


class ChildError(Exception):
    """A child agent failed or was cancelled. Carries its id, the reason and its last output."""

    def __init__(self, id, reason, last_output="", status="failed"):
        message = f"child agent {id} {status}: {reason}"
        if last_output:
            message += f"\n--- its last output ---\n{last_output}"
        super().__init__(message)
        self.id = id
        self.reason = reason
        self.last_output = last_output
        self.status = status


class BudgetExceeded(ChildError):
    """A budget (turns, tokens, time or cost) stopped the child; the whole agent tree is stopping."""


_PENDING = object()


def _decode(reply):
    """A child's final state, as the value it produced or the exception it ended with."""
    status = reply.get("status")
    if status == "done":
        value = reply.get("value") or {}
        if value.get("kind") == "pickle":
            return handoff.load(value["path"])
        if value.get("kind") == "json":
            return value.get("value")
        return value.get("text", "")
    cls = BudgetExceeded if reply.get("budget") else ChildError
    return cls(reply.get("id"), reply.get("reason", status), reply.get("last_output", ""), status)


class Agent:
    """A running child agent. `result()` waits for it; `await agent` does too."""

    def __init__(self, info):
        self.id = info["id"]
        self.name = info["name"]
        self._outcome = _PENDING

    @property
    def status(self):
        """"running", "done", "failed" or "cancelled"."""
        if self._outcome is not _PENDING:
            return "done" if not isinstance(self._outcome, ChildError) else self._outcome.status
        return _call("rlm.status", {"id": self.id})["status"]

    def result(self, timeout=None):
        """Waits for the child and returns its result; raises ChildError / BudgetExceeded if it failed,
        TimeoutError if it is still running after `timeout` seconds."""
        if self._outcome is _PENDING:
            reply = _call("rlm.wait", {"id": self.id, "timeout": timeout})
            if reply.get("status") == "running":
                raise TimeoutError(f"child agent {self.id} ({self.name}) is still running after {timeout} s")
            self._outcome = _decode(reply)
        if isinstance(self._outcome, ChildError):
            raise self._outcome
        return self._outcome

    def send(self, text):
        """Delivers a message to the child at its next turn boundary."""
        _call("rlm.send", {"id": self.id, "text": str(text)})

    def cancel(self):
        """Stops the child (its cell is interrupted, its kernel and its own children end)."""
        _call("rlm.cancel", {"id": self.id})

    def __await__(self):
        return asyncio.get_running_loop().run_in_executor(None, self.result).__await__()

    def __repr__(self):
        return f"<Agent {self.id} {self.name!r}>"


def _given(**values):
    """The optional parameters the caller gave (not None), as text: the host leaves the others out."""
    return {key: str(value) for key, value in values.items() if value is not None}


def _default_parallelism():
    return max(1, min(32, (os.cpu_count() or 2) * 4))


class Rlm:
    """rlm(task, **variables) runs a child agent to completion and returns its result.

    rlm.spawn(...) starts one without waiting, rlm.map(...) runs one per item, rlm.collect(...)
    waits for many, rlm.agents() lists this agent's children. Keyword arguments become variables in
    the child's kernel; the child's prompt names them with type and size, never their content.
    """

    ChildError = ChildError
    BudgetExceeded = BudgetExceeded
    Agent = Agent

    def __call__(self, task, *, name=None, spec=None, model=None, kernel=None, mode=None, **variables):
        agent = self.spawn(task, name=name, spec=spec, model=model, kernel=kernel, mode=mode, **variables)
        try:
            return agent.result()
        except KeyboardInterrupt:
            # The caller gave up on this child: nobody will read its result, so stop paying for it.
            try:
                agent.cancel()
            except Exception:
                pass
            raise

    def spawn(self, task, *, name=None, spec=None, model=None, kernel=None, mode=None, **variables):
        """`kernel`: where the child's kernel runs, a kernel URI ("ssh://gpu1", "cmd:...", "local");
        default: this agent's. `mode`: its permission mode ("plan": read-only, "workspace", "full");
        default: this agent's, and never wider than it."""
        packed = handoff.pack_variables(variables)
        try:
            params = {"task": str(task), "name": name, "spec": spec, "model": model, "variables": packed}
            info = _call("rlm.spawn", {**params, **_given(kernel=kernel, mode=mode)})
        except Exception:
            # Refused by the host: the files are still ours. (Once the host has the request, a child
            # may be loading them, and the host deletes them.)
            handoff.discard(packed)
            raise
        return Agent(info)

    def map(
        self,
        task,
        items,
        *,
        max_parallel=None,
        return_exceptions=False,
        spec=None,
        model=None,
        kernel=None,
        mode=None,
        **shared,
    ):
        """One child per item (as the variable `item`, plus any `shared` variables), at most
        `max_parallel` at a time (default: cores x 4, at most 32). Results come back in input order.
        `kernel` (a kernel URI, e.g. "ssh://gpu1") runs every child's kernel there; `mode` ("plan")
        runs every child in that permission mode (never wider than this agent's).
        A failure raises its ChildError (the others are cancelled) unless return_exceptions=True, in
        which case it takes the item's place in the list."""
        items = list(items)
        common = handoff.pack_variables(shared)
        children = []
        try:
            for i, item in enumerate(items):
                children.append(handoff.pack_variables({"item": item}, what=f"rlm.map: item {i}"))
            # Interrupted while waiting (a cell timeout): the host cancels the map's children.
            reply = _call(
                "rlm.map",
                {
                    "task": str(task),
                    "spec": spec,
                    "model": model,
                    "shared": common,
                    "children": [{"variables": v} for v in children],
                    "max_parallel": int(max_parallel or _default_parallelism()),
                    "fail_fast": not return_exceptions,
                    **_given(kernel=kernel, mode=mode),
                },
                cancel="rlm.map_cancel",
            )
        except Exception:
            handoff.discard(common)
            for v in children:
                handoff.discard(v)
            raise
        outcomes = [_decode(r) for r in reply["results"]]
        failures = [o for o in outcomes if isinstance(o, ChildError)]
        if failures and not return_exceptions:
            # The first that failed of itself, not one of the others cancelled because of it.
            raise next((f for f in failures if f.status != "cancelled"), failures[0])
        return outcomes

    def collect(self, agents):
        """Waits for every agent and returns their results in the same order."""
        return [a.result() for a in agents]

    def agents(self):
        """This agent's children: id, name, status, task, tokens, cost, elapsed seconds."""
        return _call("rlm.list", {})

    def __repr__(self):
        return "<rlm: run child agents; help(rlm) for usage>"


class Llm:
    """llm(prompt, model=None): one plain model completion, no kernel and no tools.

    llm.batch(prompts) runs several concurrently and returns their texts in order.
    """

    def __call__(self, prompt, model=None):
        # Interrupted while waiting (a cell timeout): the host abandons the request (llm.cancel).
        return _call("llm", {"prompt": str(prompt), "model": model}, cancel="llm.cancel")["text"]

    def batch(self, prompts, model=None, max_parallel=None):
        params = {
            "prompts": [str(p) for p in prompts],
            "model": model,
            "max_parallel": int(max_parallel or _default_parallelism()),
        }
        return _call("llm.batch", params, cancel="llm.cancel")["texts"]

    def __repr__(self):
        return "<llm: one plain completion; help(llm) for usage>"


_ERRORS = {
    "depth": RuntimeError,
    "usage": ValueError,
    "not_found": LookupError,
    "sandbox": PermissionError,
}


def _call(method, params, errors=None, cancel=None):
    """calls.call (`cancel` as there), with the host's error codes turned into the exceptions Python code
    expects (`errors` adds codes of a caller's own)."""
    try:
        return calls.call(method, params, cancel)
    except calls.HostError as e:
        if e.code == "budget":
            raise BudgetExceeded(method, str(e), status="stopped") from None
        known = {**_ERRORS, **(errors or {})}
        if e.code in known:
            raise known[e.code](str(e)) from None
        raise


rlm = Rlm()
llm = Llm()
