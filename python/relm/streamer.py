"""Live output of the running cell to the host, batched.

The first `cap` characters of a cell go out as they are written. Past the cap the stream keeps going,
but only with the newest text: what piled up in one interval beyond `tail` characters is dropped, and a
marker line says how much and where all of it is (`_out[N]`, and `outputs/cell-N.txt` once the cell
ends). A view then shows what the cell is printing now, not its first screens while the kernel is far
past them, and a cell printing gigabytes costs the host at most `tail` characters per interval.
"""

import threading
import time

IDLE_BUDGET = 20_000  # output written between cells is kept (up to this much) for the next cell
TAIL = 4_000  # past the cap: the newest characters sent per interval


def skipped_marker(chars, count):
    where = f"_out[{count}] and outputs/cell-{count}.txt" if count is not None else "the kernel's _out"
    return f"[relm: {chars:,} characters skipped in the live view; all of the output: {where}]\n"


class Streamer:
    def __init__(self, send, interval=0.05, tail=TAIL):
        self._send = send
        self._interval = interval
        self._tail = tail
        self._cond = threading.Condition()
        self._idle()
        self._at_line_start = True  # the last character sent was a newline (or nothing was sent)
        # One long-lived thread: nothing is spawned per cell, and a cell without output never wakes it.
        threading.Thread(target=self._run, name="relm-stream", daemon=True).start()

    def feed(self, text):
        with self._cond:
            if self._budget > 0:
                head = text[: self._budget]
                self._budget -= len(head)
                self._add(head)
                text = text[len(head) :]
            if text and self._cell is not None:
                self._over = self._over + text
                if len(self._over) > self._tail:
                    cut = len(self._over) - self._tail
                    self._skipped += cut
                    self._over = self._over[cut:]
            if self._cell is not None and (self._pending or self._over):
                self._cond.notify()

    def begin(self, cell_id, cap, count=None):
        with self._cond:
            self._cell = cell_id
            self._count = count
            self._over = ""
            self._skipped = 0
            self._at_line_start = True
            if self._pending_chars > cap:
                self._pending = ["".join(self._pending)[:cap]]
                self._pending_chars = cap
            self._budget = cap - self._pending_chars
            if self._pending:
                self._cond.notify()

    def end(self):
        """Sends what is left of the cell's stream; called before the cell's result goes out."""
        with self._cond:
            self._flush()
            self._idle()

    def _idle(self):
        """No cell: nothing pending, the idle budget for what is written before the next one."""
        self._cell = None
        self._count = None
        self._skipped = 0  # characters dropped since the last message, past the cap
        self._pending = []  # within the cap (or the idle budget): sent whole
        self._pending_chars = 0
        self._over = ""  # past the cap: the newest `tail` characters only
        self._budget = IDLE_BUDGET

    def _add(self, text):
        if text:
            self._pending.append(text)
            self._pending_chars += len(text)

    def _flush(self):
        if not ((self._pending or self._over) and self._cell is not None):
            return
        text = "".join(self._pending)
        over = self._over
        self._pending = []
        self._pending_chars = 0
        self._over = ""
        if self._skipped:
            # Start at a whole line: the rest of a line cut by the skip counts as skipped too.
            newline = over.find("\n")
            if 0 <= newline < len(over) - 1:
                self._skipped += newline + 1
                over = over[newline + 1 :]
            at_line_start = text.endswith("\n") if text else self._at_line_start
            lead = "" if at_line_start else "\n"
            over = lead + skipped_marker(self._skipped, self._count) + over
            self._skipped = 0
        text += over
        if text:
            self._at_line_start = text.endswith("\n")
            self._send({"type": "stream", "id": self._cell, "text": text})

    def _run(self):
        while True:
            with self._cond:
                while not ((self._pending or self._over) and self._cell is not None):
                    self._cond.wait()
            time.sleep(self._interval)
            with self._cond:
                self._flush()
