"""A fake host on the other end of two pipes, for code that calls back to the host (relm.calls).

The peer reads requests as the Node host would and writes responses, which the runner's own protocol
reader hands back to the waiting callers.
"""

import json
import os
import threading
import unittest

from relm import calls, handoff, protocol

from .support import temp_dir


class HostPeer:
    """Reads requests from the runner's side; `respond(request)` returns the responses to write."""

    def __init__(self, respond):
        self.respond = respond
        self.requests = []
        self.req_r, self.req_w = os.pipe()
        self.resp_r, self.resp_w = os.pipe()
        threading.Thread(target=self._serve, daemon=True).start()
        reader = threading.Thread(
            target=protocol.read_loop,
            args=(self.resp_r, lambda m: calls.resolve(m) if m.get("type") == "response" else None, lambda: None),
            daemon=True,
        )
        reader.start()

    def _serve(self):
        with os.fdopen(self.req_r, "rb") as f:
            for line in f:
                msg = json.loads(line)
                self.requests.append(msg)
                for answer in self.respond(msg):
                    os.write(self.resp_w, (json.dumps({"type": "response", **answer}) + "\n").encode())

    def close(self):
        os.close(self.req_w)
        os.close(self.resp_w)


class HostTestCase(unittest.TestCase):
    def setUp(self):
        previous = protocol._fd
        self.addCleanup(protocol.connect, previous)
        self.handlers = {}
        self.peer = HostPeer(self._answer)
        self.addCleanup(self.peer.close)
        protocol.connect(self.peer.req_w)
        self.dir = temp_dir(self)
        previous_dir = handoff._dir
        handoff.configure(self.dir)
        self.addCleanup(handoff.configure, previous_dir)

    def _answer(self, msg):
        handler = self.handlers.get(msg["method"])
        if handler is None:
            return [{"id": msg["id"], "error": {"message": f"no method {msg['method']}", "code": "not_found"}}]
        reply = handler(msg["params"])
        return [{"id": msg["id"], **reply}]

    def methods(self):
        return [r["method"] for r in self.peer.requests]
