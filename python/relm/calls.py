"""Calls from Python code back to the host (the agent that owns this kernel).

`call` blocks the calling thread until the host answers. Answers are delivered by the runner's
protocol reader thread, so a cell can wait on the host without deadlock, and several threads may
wait at once.
"""

import contextlib
import itertools
import os
import threading

from . import interrupts, protocol


class HostError(Exception):
    """The host answered a request with an error; `code` names its kind when the host gave one."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


_ids = itertools.count(1)
_pending = {}


def call(method, params=None, cancel=None):
    """Sends `method(params)` to the host and returns its JSON result; raises HostError on error. With
    `cancel`, an interrupt of the cell while it waits cancels the request (cancelled_on_interrupt)."""
    if cancel is not None:
        with cancelled_on_interrupt(cancel) as call_id:
            return call(method, {**params, "call": call_id})
    rid = next(_ids)
    slot = [threading.Event(), None]
    _pending[rid] = slot
    try:
        protocol.send({"type": "request", "id": rid, "method": method, "params": params})
        slot[0].wait()
    finally:
        _pending.pop(rid, None)
    msg = slot[1]
    error = msg.get("error")
    if error is not None:
        if isinstance(error, dict):
            raise HostError(str(error.get("message", error)), error.get("code"))
        raise HostError(str(error))
    return msg.get("result")


def notify(method, params=None):
    """Sends `method(params)` without waiting for the answer (e.g. a cancellation from an interrupted
    cell, which must not block on the host)."""
    protocol.send({"type": "request", "id": next(_ids), "method": method, "params": params})


@contextlib.contextmanager
def cancelled_on_interrupt(cancel):
    """Yields an id for the host request made inside the block (its params' "call"). When the cell is
    interrupted there, the host is sent `cancel({"call": id})` without waiting for an answer (the cell
    must stop now), and the interrupt goes on."""
    call_id = os.urandom(8).hex()
    try:
        yield call_id
    except KeyboardInterrupt:
        with interrupts.deferred():
            try:
                notify(cancel, {"call": call_id})
            except Exception:  # noqa: BLE001 - the interrupt matters more than the cancellation
                pass
        raise


def resolve(msg):
    """Hands a `response` message to the waiting caller (protocol reader thread)."""
    slot = _pending.get(msg.get("id"))
    if slot is not None:
        slot[1] = msg
        slot[0].set()
