"""The Python side of fetch() (relm.toolkit.web): its values survive a snapshot and a hand-over to
another agent, both of which pickle them. (The requests themselves are the host's:
test/agent/toolkit-web*.test.ts.)"""

import pickle
import unittest

from relm import snapshot
from relm.toolkit.web import Page, Raw

from .support import temp_dir

INFO = {
    "url": "https://example.org/a",
    "final_url": "https://example.org/b",
    "status": 200,
    "content_type": "text/html",
    "title": "Example",
    "kind": "html",
    "bytes": 1234,
    "redirects": ["https://example.org/a"],
}


class FetchedValues(unittest.TestCase):
    def test_a_page_and_raw_bytes_come_back_from_a_pickle_whole(self):
        # Before: both pickled, but loading them raised TypeError (__new__ wants the host's facts), so a
        # snapshot listed `page` as saved and a resume could not restore it; rlm(task, page=page) too.
        page = Page("# Example\n\ntext", INFO)
        raw = Raw(b"\x89PNG...", INFO)
        for value in (page, raw):
            with self.subTest(type(value).__name__):
                back = pickle.loads(pickle.dumps(value))
                self.assertIs(type(back), type(value))
                self.assertEqual(back, value)
                for key in ("url", "final_url", "status", "content_type", "redirects"):
                    self.assertEqual(getattr(back, key), getattr(value, key), key)
        back = pickle.loads(pickle.dumps(page))
        self.assertEqual((back.title, back.kind, back.bytes), ("Example", "html", 1234))
        self.assertEqual(repr(back), repr(page))

    def test_printing_raw_bytes_prints_their_summary_not_every_byte(self):
        # print(fetch.raw(url)) printed the repr of every byte: 80 MB of text for a 20 MB body.
        raw = Raw(bytes(range(256)) * 100, {**INFO, "content_type": "image/png"})
        shown = "<fetch.raw https://example.org/b: image/png, 25,600 bytes>"
        self.assertEqual((repr(raw), str(raw), f"{raw}"), (shown, shown, shown))
        self.assertEqual(bytes(raw)[:3], b"\x00\x01\x02")  # the bytes themselves are all there

    def test_a_snapshot_restores_a_fetched_page(self):
        folder = temp_dir(self)
        report = snapshot.take(folder, {"page": Page("text", INFO)}, {}, [], 1 << 20, 1 << 20)
        self.assertEqual(report["saved"], ["page"])
        fresh = {}
        restored = snapshot.restore(folder, fresh)
        self.assertEqual(restored["failed"], [])
        self.assertEqual((fresh["page"], fresh["page"].final_url), ("text", "https://example.org/b"))


if __name__ == "__main__":
    unittest.main()
