"""Live output to the host: batched per interval, tagged with the running cell, capped at its cap."""

import threading
import unittest

from relm import streamer

from .support import wait_until


class Sent:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []

    def __call__(self, msg):
        with self.lock:
            self.messages.append(msg)

    def texts(self, cell=None):
        with self.lock:
            return [m["text"] for m in self.messages if cell is None or m["id"] == cell]


class StreamerTests(unittest.TestCase):
    def setUp(self):
        self.sent = Sent()

    def test_output_of_a_running_cell_streams_live(self):
        s = streamer.Streamer(self.sent, interval=0.01)
        s.begin("c1", 1000)
        s.feed("hello ")
        wait_until(lambda: self.sent.texts(), what="a live stream message")
        s.feed("world")
        wait_until(lambda: "".join(self.sent.texts()) == "hello world", what="the second chunk")
        self.assertEqual({m["type"] for m in self.sent.messages}, {"stream"})
        self.assertEqual({m["id"] for m in self.sent.messages}, {"c1"})

    def test_chunks_within_one_interval_go_out_as_one_message(self):
        s = streamer.Streamer(self.sent, interval=5)  # the thread waits 5 s before it sends anything
        s.begin("c1", 1000)
        for part in ("a", "b", "c"):
            s.feed(part)
        s.end()  # the cell ended first: end() sends what is left, in one message
        self.assertEqual(self.sent.messages, [{"type": "stream", "id": "c1", "text": "abc"}])

    def test_a_cell_streams_at_most_its_cap(self):
        s = streamer.Streamer(self.sent, interval=5)
        s.begin("c1", 10)
        s.feed("123456")
        s.feed("789abc")
        s.feed("more")
        s.end()
        self.assertEqual("".join(self.sent.texts()), "123456789a")

    def test_nothing_is_sent_for_a_cell_without_output(self):
        s = streamer.Streamer(self.sent, interval=0.01)
        s.begin("c1", 100)
        s.end()
        self.assertEqual(self.sent.messages, [])

    def test_output_between_cells_goes_to_the_next_cell_within_its_cap(self):
        s = streamer.Streamer(self.sent, interval=5)
        s.feed("background ")  # no cell running: held, not sent
        self.assertEqual(self.sent.messages, [])
        s.begin("c2", 15)
        s.feed("cell output")
        s.end()
        self.assertEqual(self.sent.texts("c2"), ["background cell"])

    def test_idle_output_is_bounded(self):
        s = streamer.Streamer(self.sent, interval=5)
        s.feed("x" * (streamer.IDLE_BUDGET + 500))
        s.feed("y" * 100)
        s.begin("big", streamer.IDLE_BUDGET * 2)
        s.end()
        self.assertEqual(self.sent.texts("big"), ["x" * streamer.IDLE_BUDGET])
        s.feed("z" * 100)
        s.begin("small", 30)
        s.end()
        self.assertEqual(self.sent.texts("small"), ["z" * 30])

    def test_each_cell_gets_its_own_text_and_a_fresh_budget(self):
        s = streamer.Streamer(self.sent, interval=5)
        s.begin("c1", 5)
        s.feed("first cell")
        s.end()
        s.begin("c2", 5)
        s.feed("second")
        s.end()
        self.assertEqual(self.sent.messages, [
            {"type": "stream", "id": "c1", "text": "first"},
            {"type": "stream", "id": "c2", "text": "secon"},
        ])


if __name__ == "__main__":
    unittest.main()
