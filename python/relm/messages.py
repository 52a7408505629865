"""Messages between agents: `send(to, text)` and `inbox()`.

`to` is "parent", "all" (this agent's children), a child's name or id, or another session's id. The
sender is stamped by relm, never by this code, so a message cannot claim to come from someone else.
"""

from .agents import _call


def send(to, text):
    """Sends `text` (at most 16 KB) to another agent; it reads it at its next turn boundary."""
    if not isinstance(to, str) or not to:
        raise ValueError('send(to, text): `to` is "parent", "all", a child\'s name or id, or a session id')
    return _call("msg.send", {"to": to, "text": str(text)})


def inbox():
    """Messages received since the last call: a list of {"from", "text", "time"}."""
    return _call("msg.inbox", {})
