"""Moves the protocol off the standard fds and captures everything written to fds 1 and 2.

Fds 1 and 2 both point at one pipe, so Python prints, tracebacks and the output of subprocesses
(`!cmd`, `os.system`, `subprocess.run`) arrive in the order they were written and can never
corrupt the protocol. A reader thread drains the pipe while a cell runs (so writers never block and
output streams live); at the end of the cell the main thread drains whatever is left under the
same lock. Everything written before the cell ended is then collected, with no thread hand-off on
the hot path; output written later (a background process) goes to the next cell.

What a cell keeps is bounded (KEEP_CHARS): past it only the first and the last halves stay, with a
marker where the middle was, so a cell printing without end (`!yes` until its timeout) costs the
kernel tens of MB, not gigabytes. The live stream (`on_text`) still sees every character.
"""

import codecs
import collections
import errno
import io
import os
import select
import sys
import threading

_READ = 1 << 16
# Characters of one cell's output kept for its result, `_out[N]` and outputs/cell-N.txt.
KEEP_CHARS = 50_000_000


class Capture:
    def __init__(self, proto=None):
        """`proto`: the protocol's (read fd, write fd) when it does not arrive on fds 0/1 (a kernel
        forked from the warm template talks over a socket); by default private copies of fds 0/1."""
        # os.dup returns non-inheritable fds, so subprocesses never hold the protocol or diagnostics.
        if proto is None:
            proto = (os.dup(0), os.dup(1))
        self.proto_in, self.proto_out = proto
        self.diag = os.dup(2)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.dup2(self._w, 1)
        os.dup2(self._w, 2)
        st = os.fstat(self._w)
        self._pipe_id = (st.st_dev, st.st_ino)
        sys.stdout = _text_stream(1, self._w)
        sys.stderr = _text_stream(2, self._w)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._lock = threading.Lock()
        self.keep = KEEP_CHARS
        self._head = []  # the first keep/2 characters, whole
        self._head_chars = 0
        self._tail = collections.deque()  # the newest characters after the head, at most keep - keep/2
        self._tail_chars = 0
        self._dropped = 0  # characters between the two that were let go
        self.dropped = 0  # of the cell end_cell() last returned
        self.on_text = None  # called with each decoded chunk, capture lock held
        self.on_cell_end = None  # called once the cell's output is complete, capture lock held
        threading.Thread(target=self._read_loop, name="relm-output", daemon=True).start()

    def end_cell(self):
        """Returns everything written since the previous call (Python and subprocesses)."""
        flush(sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
        self._restore_fds()
        with self._lock:
            self._drain()
            text = self._take()
            if self.on_cell_end is not None:
                self.on_cell_end()
        return text

    def _store(self, text):
        """Keeps `text` within the bound: into the head while it has room, else into the tail, whose
        oldest characters are let go beyond its share."""
        room = self.keep // 2 - self._head_chars
        if room > 0:
            piece = text[:room]
            self._head.append(piece)
            self._head_chars += len(piece)
            text = text[room:]
            if not text:
                return
        self._tail.append(text)
        self._tail_chars += len(text)
        excess = self._tail_chars - (self.keep - self.keep // 2)
        while excess > 0:
            first = self._tail[0]
            cut = min(excess, len(first))
            if cut == len(first):
                self._tail.popleft()
            else:
                self._tail[0] = first[cut:]
            self._tail_chars -= cut
            self._dropped += cut
            excess -= cut

    def _take(self):
        """The cell's kept output (with a marker where characters were let go), and a fresh start."""
        text = "".join(self._head)
        if self._dropped:
            text += (
                f"\n[relm: {self._dropped:,} characters of this cell's output were not kept here: a cell keeps "
                f"its first and last {self.keep // 2:,}]\n"
            )
        text += "".join(self._tail)
        self.dropped = self._dropped
        self._head, self._head_chars = [], 0
        self._tail, self._tail_chars, self._dropped = collections.deque(), 0, 0
        return text

    def _restore_fds(self):
        # A cell that closed or re-pointed fd 1/2 would otherwise lose all later output.
        for fd in (1, 2):
            try:
                st = os.fstat(fd)
                if (st.st_dev, st.st_ino) == self._pipe_id:
                    continue
            except OSError:
                pass
            os.dup2(self._w, fd)

    def _drain(self):
        """Reads what the pipe holds now; capture lock held. A short read means it is empty."""
        while True:
            try:
                data = os.read(self._r, _READ)
            except BlockingIOError:
                return
            text = self._decoder.decode(data)
            if text:
                self._store(text)
                if self.on_text is not None:
                    self.on_text(text)
            if len(data) < _READ:
                return

    def _read_loop(self):
        poller = select.poll()
        poller.register(self._r, select.POLLIN)
        while True:
            poller.poll()
            with self._lock:
                self._drain()


def flush(*streams):
    """Flushes what Python holds of the streams' output, so that it lands before what is written next."""
    for stream in streams:
        try:
            stream.flush()
        except Exception:
            pass


class _FdWriter(io.RawIOBase):
    """Raw writer that never returns a short write (TextIOWrapper does not retry).

    A cell may close fd 1 or 2 (`os.close(1)`): Python's own prints, and the traceback of the error that
    follows, then go to `fallback` (the capture pipe's own end) and stay in that cell's output, instead
    of failing and waiting in the buffer for the next cell once the fds are restored.
    """

    def __init__(self, fd, fallback):
        super().__init__()
        self._fd = fd
        self._fallback = fallback

    def writable(self):
        return True

    def fileno(self):
        return self._fd

    def write(self, b):
        view = memoryview(b)
        total = len(view)
        while view:
            try:
                written = os.write(self._fd, view)
            except OSError as e:
                if e.errno != errno.EBADF:
                    raise
                written = os.write(self._fallback, view)
            view = view[written:]
        return total


def _text_stream(fd, fallback):
    buffered = io.BufferedWriter(_FdWriter(fd, fallback), buffer_size=1 << 16)
    return io.TextIOWrapper(
        buffered, encoding="utf-8", errors="replace", line_buffering=True, write_through=True
    )
