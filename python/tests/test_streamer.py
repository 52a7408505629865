"""Live output to the host: batched per interval, tagged with the running cell, its newest text past its cap."""

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

    def test_past_its_cap_a_cell_streams_its_newest_text_with_a_marker(self):
        s = streamer.Streamer(self.sent, interval=5, tail=12)
        s.begin("c1", 10, 7)
        s.feed("123456")
        s.feed("789abc")  # the cap ends after "a": the rest is past the cap, within the tail
        s.end()
        self.assertEqual("".join(self.sent.texts()), "123456789abc")
        s.begin("c2", 10, 8)
        s.feed("head line\n" + "".join(f"line {i}\n" for i in range(100)))
        s.end()
        text = "".join(self.sent.texts("c2"))
        # The head up to the cap, then a marker with how much was skipped and where all of it is,
        # then the newest whole lines.
        self.assertTrue(text.startswith("head line\n"), text)
        self.assertRegex(text, r"\[relm: [\d,]+ characters skipped in the live view; all of the output: "
                         r"_out\[8\] and outputs/cell-8\.txt\]\nline 99\n$")
        skipped = int(text.split("[relm: ")[1].split(" ")[0].replace(",", ""))
        total = len("head line\n" + "".join(f"line {i}\n" for i in range(100)))
        self.assertEqual(10 + skipped + len("line 99\n"), total)

    def test_a_cell_printing_all_the_time_keeps_streaming_its_newest_lines(self):
        s = streamer.Streamer(self.sent, interval=0.01, tail=50)
        s.begin("c1", 20, 3)
        for i in range(2000):
            s.feed(f"row {i}\n")
        wait_until(lambda: "row 1999" in "".join(self.sent.texts()), what="the newest row")
        s.end()
        text = "".join(self.sent.texts())
        self.assertIn("characters skipped in the live view", text)
        self.assertLess(len(text), 2000 * 5)

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
        self.assertEqual(self.sent.texts("c2"), ["background cell output"])

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
            {"type": "stream", "id": "c1", "text": "first cell"},
            {"type": "stream", "id": "c2", "text": "second"},
        ])


if __name__ == "__main__":
    unittest.main()
