"""`request(kind, reason, **details)`: ask the person (or the session's approval policy) for more than
the permission mode allows. The host shows exactly what is asked, journals the question and the answer,
and acts only once it is granted (docs/sandbox.md, "Approvals"). The call waits for the answer."""

import os

from .agents import _call


class Denied(PermissionError):
    """The request was refused: `.reason` says by whom and why. Work around it, or say in your answer
    what you would need."""

    def __init__(self, kind, subject, by, note):
        self.kind, self.subject, self.by, self.reason = kind, subject, by, note or ""
        who = "by the session's approval policy" if by == "policy" else f"by the user ({by})"
        text = f"request({kind!r}) for {subject} was denied {who}"
        if note:
            text += f": {note}"
        super().__init__(text + ". Do without it, or say in your answer what you would need and why.")


class Granted(dict):
    """What was granted, and for a command its output: g["output"], g["exit_code"] (also as g.output)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def request(kind, reason, **details):
    """Asks for one thing the permission mode does not allow, and waits for the answer:

    request("net", "install from PyPI", host="pypi.org")          # the sandbox may reach that host now
    request("run", "push the branch", cmd="git push")             # run outside the sandbox; output returned
    request("write", "save the report", path="~/report.md", content=text)
    request("mode", "need to install packages", mode="full")      # the kernel restarts after this cell

    Returns a Granted (a dict); raises request.Denied (a PermissionError) with the reason if refused."""
    if kind == "mode" and "mode" not in details and details.get("to") is not None:
        details["mode"] = details.pop("to")
    params = {"kind": str(kind), "reason": str(reason), **details}
    if "path" in details:
        params["path"] = os.path.expanduser(str(details["path"]))  # the refusal names it as it was given
    # Interrupted while waiting: the host takes the question back from every front end (nobody's answer
    # may act on it now).
    answer = _call("approval.request", params, cancel="approval.cancel")
    if not answer.get("granted"):
        subject = details.get("host") or details.get("cmd") or details.get("path") or details.get("mode") or kind
        raise Denied(kind, subject, answer.get("by", "policy"), answer.get("note"))
    return Granted(answer)


request.Denied = Denied
