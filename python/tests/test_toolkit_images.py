"""look()'s image preparation (relm.toolkit.images) and the web functions' values (relm.toolkit.web),
without a host: sizes, downscaling, the stdlib PNG encoder, refusals; repr of pages and results."""

import os
import struct
import unittest
import zlib

from relm.toolkit import _text, images, web
from relm.toolkit.images import look

from .support import temp_dir

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is optional in a kernel
    np = None

try:
    import PIL  # noqa: F401

    HAVE_PIL = True
except ImportError:
    HAVE_PIL = False


def png_pixels(data):
    """(width, height, colour type, raw rows without filter bytes) of a PNG made by images._png."""
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    w, h, depth, color = struct.unpack(">IIBB", data[16:26])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        if kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = len(raw) // h
    rows = [raw[i * stride + 1 : (i + 1) * stride] for i in range(h)]
    assert all(raw[i * stride] == 0 for i in range(h))
    return w, h, color, rows


def jpeg_header(width, height):
    """SOI, an APP0 segment and a baseline SOF0 segment: enough for the size to be read."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof0 + b"\xff\xd9"


@unittest.skipIf(np is None, "numpy is not installed")
class Arrays(unittest.TestCase):
    def test_float_gray_becomes_a_valid_png_with_the_right_pixels(self):
        a = np.array([[0.0, 1.0], [0.5, 0.25]])
        data, mime, size = images._encode(a, 1568, "a")
        self.assertEqual((mime, size), ("image/png", (2, 2)))
        if not HAVE_PIL:
            w, h, color, rows = png_pixels(data)
            self.assertEqual((w, h, color), (2, 2, 0))
            self.assertEqual(rows, [bytes([0, 255]), bytes([127, 63])])

    def test_rgba_and_bool(self):
        self.assertEqual(images._encode(np.zeros((3, 5, 4), np.uint8), 1568, "a")[2], (5, 3))
        data, _, size = images._encode(np.eye(4, dtype=bool), 1568, "a")
        self.assertEqual(size, (4, 4))
        if not HAVE_PIL:
            self.assertEqual(png_pixels(data)[3][0], bytes([255, 0, 0, 0]))

    def test_big_arrays_are_downscaled_within_max_side_and_the_byte_limit(self):
        # Noise does not compress: 1400×1400×3 is 5.9 MB as PNG, over the limit at full size.
        a = (np.random.default_rng(1).random((1400, 1400, 3)) * 255).astype(np.uint8)
        data, _, (w, h) = images._encode(a, 1568, "a")
        if HAVE_PIL:
            self.assertLessEqual(max(w, h), 1400)  # Pillow's JPEG of it fits at full size
        else:
            self.assertLess(max(w, h), 1400)  # the stdlib PNG does not: downscaled until it fits
        self.assertLessEqual(len(data), images.MAX_BYTES)
        self.assertEqual(images._encode(np.zeros((400, 100)), 100, "a")[2][1], 100)

    def test_shapes_and_types_it_cannot_show(self):
        with self.assertRaisesRegex(ValueError, r"H×W \(gray\), H×W×3 \(RGB\) or H×W×4 \(RGBA\), got shape \(2, 2, 2\)"):
            images._encode(np.zeros((2, 2, 2)), 1568, "the array")
        with self.assertRaisesRegex(TypeError, "dtype"):
            images._encode(np.array([["a", "b"]]), 1568, "the array")


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(self)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_a_small_jpeg_goes_as_it_is_with_its_size_read_from_the_header(self):
        jpeg = jpeg_header(640, 480)
        self.assertEqual(images._dims(jpeg, "image/jpeg"), (640, 480))
        if not HAVE_PIL:
            self.assertEqual(images._encode(self.write("p.jpg", jpeg), 1568, "p.jpg"), (jpeg, "image/jpeg", (640, 480)))

    def test_the_type_is_read_from_the_bytes_not_the_name(self):
        with self.assertRaisesRegex(ValueError, "not a PNG, JPEG, GIF or WebP image"):
            images._encode(self.write("fake.png", b"hello"), 1568, "fake.png")

    @unittest.skipIf(HAVE_PIL, "Pillow would downscale it")
    def test_too_big_without_pillow_is_refused_saying_what_to_do(self):
        huge = jpeg_header(9000, 6000)
        with self.assertRaisesRegex(ValueError, r"too big to send as it is .*9000×6000 px.*pip install pillow"):
            images._encode(self.write("huge.jpg", huge), 1568, "huge.jpg")

    def test_a_file_over_the_toolkit_cap_is_refused_unread(self):
        # Read whole, a sparse file of terabytes filled the kernel's memory with zeros before anything was said.
        path = os.path.join(self.dir, "huge.png")
        with open(path, "wb") as f:
            f.truncate(_text.FILE_CAP + 1)
        with self.assertRaisesRegex(_text.FileTooLarge, r"is 268,435,457 bytes, more than the 268,435,456 look\(\) read of a file: make a smaller image"):
            images._encode(path, 1568, "huge.png")

    def test_misuse_is_refused_before_anything_else(self):
        with self.assertRaisesRegex(TypeError, "look\\(\\) takes a file path"):
            images._check_source(42)
        with self.assertRaisesRegex(FileNotFoundError, "no such file"):
            images._check_source(os.path.join(self.dir, "missing.png"))
        with self.assertRaisesRegex(ValueError, "max_side"):
            look("x.png", max_side=3)

    def test_outside_a_relm_kernel_it_says_it_needs_a_host(self):
        with self.assertRaisesRegex(RuntimeError, "through a relm host"):
            look(self.write("a.png", b"\x89PNG\r\n\x1a\n"))


class FakeFigure:
    """What look() uses of a matplotlib Figure: its size and savefig (matplotlib is not needed here)."""

    def __init__(self, png):
        self.png = png
        self.canvas = object()
        self.dpi_asked = None

    def get_size_inches(self):
        return (6.4, 4.8)

    def savefig(self, buf, format, dpi):
        self.dpi_asked = dpi
        buf.write(self.png)


class FakeAxes:
    def __init__(self, figure):
        self.figure = figure

    def get_figure(self):
        return self.figure


@unittest.skipIf(np is None, "numpy is not installed")
class Figures(unittest.TestCase):
    def test_a_figure_and_its_axes_are_saved_as_png_at_a_fitting_resolution(self):
        png = images._png(np.zeros((48, 64), np.uint8))
        fig = FakeFigure(png)
        self.assertEqual(images._encode(fig, 1568, "the figure")[1:], ("image/png", (64, 48)))
        self.assertAlmostEqual(fig.dpi_asked, 150.0)
        self.assertEqual(images._label(FakeAxes(fig)), "the figure")
        images._encode(FakeAxes(fig), 320, "the figure")
        self.assertAlmostEqual(fig.dpi_asked, 50.0)


class WebValues(unittest.TestCase):
    def test_page_is_a_str_shown_with_a_header_and_capped(self):
        page = web.Page("# Title\n" + "x" * 50_000, {"final_url": "https://e.org/", "kind": "html", "title": "T"})
        self.assertIsInstance(page, str)
        self.assertTrue(repr(page).startswith("[https://e.org/ — html, 50,008 chars, title: T]\n# Title"))
        self.assertLess(len(repr(page)), 13_000)
        self.assertIn("the whole text is in the value", repr(page))

    def test_results_list_one_entry_each(self):
        r = web.Results([web.Result("A", "https://a.org", "about  a\nthing"), web.Result("", "https://b.org", "")])
        self.assertEqual(repr(r), "1. A\n   https://a.org\n   about a thing\n2. (no title)\n   https://b.org")
        self.assertEqual(r[0]["url"], "https://a.org")
        self.assertEqual(dict(r[0]), {"title": "A", "url": "https://a.org", "snippet": "about  a\nthing"})
        empty = web.Results()
        empty.query = "q"
        self.assertEqual(repr(empty), "[no results for 'q']")

    def test_arguments_are_checked_here_and_the_host_is_needed(self):
        with self.assertRaisesRegex(TypeError, "url must be a str"):
            web.fetch(b"https://x")
        with self.assertRaisesRegex(ValueError, "max_bytes must be a number above 0"):
            web.fetch("https://x", max_bytes=0)
        with self.assertRaisesRegex(ValueError, "n must be a whole number from 1 to 50"):
            web.search("q", n=0)
        with self.assertRaisesRegex(ValueError, "the query is empty"):
            web.search("  ")
        with self.assertRaisesRegex(RuntimeError, "runs through a relm host"):
            web.fetch("https://x")
        self.assertTrue(issubclass(web.FetchError, web.fetch.Error))
        self.assertTrue(issubclass(web.SearchError, web.fetch.Error))


if __name__ == "__main__":
    unittest.main()
