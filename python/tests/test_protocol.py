"""The JSON-lines channel: one message per line, whole lines from many threads, tolerant reading."""

import json
import os
import threading
import unittest

from relm import protocol


class Pipe:
    """A pipe whose read end is drained by a thread, so large writes never block."""

    def __init__(self):
        self.r, self.w = os.pipe()
        self.data = bytearray()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        while True:
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                break
            self.data += chunk
        os.close(self.r)

    def lines(self):
        """Closes the write end and returns every line written, parsed."""
        os.close(self.w)
        self._thread.join(10)
        text = bytes(self.data).decode("utf-8")
        assert text.endswith("\n") or not text, "the last message is not a whole line"
        return [json.loads(line) for line in text.splitlines()]


class SendTests(unittest.TestCase):
    def setUp(self):
        previous = protocol._fd
        self.addCleanup(protocol.connect, previous)
        self.pipe = Pipe()
        protocol.connect(self.pipe.w)

    def test_each_message_is_one_json_line(self):
        protocol.send({"type": "stream", "id": "c1", "text": "line one\nline two ✓"})
        protocol.send({"type": "result", "id": "c1"})
        self.assertEqual(
            self.pipe.lines(),
            [{"type": "stream", "id": "c1", "text": "line one\nline two ✓"}, {"type": "result", "id": "c1"}],
        )

    def test_values_json_cannot_carry_are_made_safe(self):
        protocol.send({"nan": float("nan"), "deep": [1.5, float("inf"), {"x": float("-inf")}]})
        protocol.send({"set": {1}, "bytes": b"\x00"})
        self.assertEqual(
            self.pipe.lines(),
            [{"nan": None, "deep": [1.5, None, {"x": None}]}, {"set": "{1}", "bytes": "b'\\x00'"}],
        )

    def test_large_messages_from_many_threads_never_interleave(self):
        payload = "x" * 20_000
        big = "y" * (1 << 20)

        def writer(n):
            for i in range(40):
                protocol.send({"thread": n, "i": i, "text": payload})

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
        for t in threads:
            t.start()
        protocol.send({"big": big})
        for t in threads:
            t.join(30)
        lines = self.pipe.lines()
        self.assertEqual(len(lines), 6 * 40 + 1)
        self.assertIn({"big": big}, lines)
        for n in range(6):
            mine = [m["i"] for m in lines if m.get("thread") == n]
            self.assertEqual(mine, list(range(40)))  # in order, none lost or torn

    def test_sending_outside_a_kernel_is_an_error(self):
        protocol.connect(None)
        with self.assertRaisesRegex(RuntimeError, "not running inside a relm kernel"):
            protocol.send({"type": "x"})
        protocol.connect(self.pipe.w)
        self.assertEqual(self.pipe.lines(), [])


class ReadLoopTests(unittest.TestCase):
    def test_reads_messages_skipping_blank_and_malformed_lines_then_reports_eof(self):
        r, w = os.pipe()
        os.write(w, b'{"type":"execute","id":"a"}\n\n   \nnot json\n\xff\xfe\n{"type":"shut')
        os.write(w, b'down"}\n{"type":"last"}')  # a line split across writes; the last without "\n"
        os.close(w)
        got, eof = [], []
        protocol.read_loop(r, got.append, lambda: eof.append(True))
        self.assertEqual(got, [{"type": "execute", "id": "a"}, {"type": "shutdown"}, {"type": "last"}])
        self.assertEqual(eof, [True])

    def test_eof_is_reported_even_when_a_handler_fails(self):
        r, w = os.pipe()
        os.write(w, b'{"n":1}\n')
        os.close(w)
        eof = []

        def fail(msg):
            raise ValueError("handler bug")

        with self.assertRaises(ValueError):
            protocol.read_loop(r, fail, lambda: eof.append(True))
        self.assertEqual(eof, [True])


if __name__ == "__main__":
    unittest.main()
