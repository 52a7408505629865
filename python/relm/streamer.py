"""Live output of the running cell to the host, batched, and only up to the cell's cap."""

import threading
import time

IDLE_BUDGET = 20_000  # output written between cells is kept (up to this much) for the next cell


class Streamer:
    def __init__(self, send, interval=0.05):
        self._send = send
        self._interval = interval
        self._cond = threading.Condition()
        self._pending = []
        self._cell = None
        self._budget = IDLE_BUDGET
        # One long-lived thread: nothing is spawned per cell, and a cell without output never wakes it.
        threading.Thread(target=self._run, name="relm-stream", daemon=True).start()

    def feed(self, text):
        with self._cond:
            if self._budget <= 0:
                return
            if len(text) > self._budget:
                text = text[: self._budget]
            self._budget -= len(text)
            self._pending.append(text)
            if self._cell is not None:
                self._cond.notify()

    def begin(self, cell_id, cap):
        with self._cond:
            self._cell = cell_id
            used = sum(map(len, self._pending))
            if used > cap:
                self._pending = ["".join(self._pending)[:cap]]
                used = cap
            self._budget = cap - used
            if self._pending:
                self._cond.notify()

    def end(self):
        """Sends what is left of the cell's stream; called before the cell's result goes out."""
        with self._cond:
            self._flush()
            self._cell = None
            self._budget = IDLE_BUDGET

    def _flush(self):
        if self._pending and self._cell is not None:
            text = "".join(self._pending)
            self._pending = []
            self._send({"type": "stream", "id": self._cell, "text": text})

    def _run(self):
        while True:
            with self._cond:
                while not (self._pending and self._cell is not None):
                    self._cond.wait()
            time.sleep(self._interval)
            with self._cond:
                self._flush()
