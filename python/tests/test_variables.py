"""Variable summaries: what the model is told about a variable (type, size, bounded preview)."""

import os
import threading
import time
import unittest
from unittest import mock

from relm import variables


class Shaped:
    shape = (3, 4)


class Sized:
    def __len__(self):
        return 1


class BadRepr:
    def __repr__(self):
        raise RuntimeError("boom")


class SlowRepr:
    def __repr__(self):
        deadline = time.monotonic() + 10  # the alarm ends this long before; a bound if it does not
        while time.monotonic() < deadline:
            pass
        return "finished"


class DescribeTests(unittest.TestCase):
    def test_describe_gives_name_type_size_and_preview(self):
        self.assertEqual(
            variables.describe("doc", "hello"),
            {"name": "doc", "type": "str", "size": "5 chars", "preview": "'hello'"},
        )

    def test_sizes_by_kind(self):
        self.assertEqual(variables.size_of("x" * 12345), "12,345 chars")
        self.assertEqual(variables.size_of(b"\x00" * 2048), "2,048 bytes")
        self.assertEqual(variables.size_of(bytearray(3)), "3 bytes")
        self.assertEqual(variables.size_of(memoryview(b"abcd")), "4 bytes")
        self.assertEqual(variables.size_of([1, 2, 3]), "3 items")
        self.assertEqual(variables.size_of({"a": 1}), "1 item")
        self.assertEqual(variables.size_of(Sized()), "1 item")
        self.assertEqual(variables.size_of(Shaped()), "(3, 4) Shaped")
        for scalar in (1, 2.5, 1j, True, None):
            self.assertEqual(variables.size_of(scalar), "scalar")
        self.assertEqual(variables.size_of(object()), "")
        self.assertEqual(variables.size_of(list), "")  # a class has __len__ on instances, not a size

    def test_preview_is_bounded_and_on_one_line(self):
        text = variables.preview("word " * 1000)
        self.assertLessEqual(len(text), variables.PREVIEW_CHARS)
        self.assertNotIn("\n", variables.preview({"a": "x\ny", "b": [1, 2]}))
        long = variables.preview(list(range(1000)))
        self.assertIn("...", long)
        self.assertLessEqual(len(long), variables.PREVIEW_CHARS)
        self.assertEqual(variables.preview("a\n\n  b"), "'a\\n\\n b'")

    def test_preview_of_a_huge_bytes_value_reads_only_its_start(self):
        data = os.urandom(1 << 20)
        text = variables.preview(data)
        self.assertLessEqual(len(text), variables.PREVIEW_CHARS)
        self.assertTrue(text.startswith("b'") or text.startswith('b"'))

    def test_a_failing_repr_is_reported_not_raised(self):
        # reprlib stands in a generic "<Class instance at 0x...>" for a __repr__ that raises.
        described = variables.describe("x", BadRepr())
        self.assertEqual(described["type"], "BadRepr")
        self.assertRegex(described["preview"], r"^<BadRepr instance at 0x[0-9a-f]+>$")


class UserVariablesTests(unittest.TestCase):
    def test_lists_only_what_the_user_defined_in_order(self):
        exported = [print]
        ns = {
            "b": 2,
            "_private": 1,
            "os": os,
            "kernel_fn": print,
            "a": "text",
            "hidden_value": 5,
        }
        hidden = {"hidden_value": 5}
        found = variables.user_variables(ns, hidden, exported)
        self.assertEqual([v["name"] for v in found], ["b", "a"])

    def test_a_rebound_hidden_name_is_listed(self):
        original = object()
        ns = {"submit": "my own value"}
        found = variables.user_variables(ns, {"submit": original}, [original])
        self.assertEqual([v["name"] for v in found], ["submit"])
        self.assertEqual(found[0]["type"], "str")

    def test_a_repr_that_hangs_is_cut_short(self):
        ns = {"slow": SlowRepr(), "fine": 1}
        with mock.patch.object(variables, "DESCRIBE_SECONDS", 0.05):
            started = time.monotonic()
            found = variables.user_variables(ns, {}, [])
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(found[0], {"name": "slow", "type": "SlowRepr", "size": "", "preview": "<repr took too long>"})
        self.assertEqual(found[1]["preview"], "1")

    def test_off_the_main_thread_it_still_describes(self):
        out = []
        t = threading.Thread(target=lambda: out.append(variables.user_variables({"x": [1]}, {}, [])))
        t.start()
        t.join(10)
        self.assertEqual(out, [[{"name": "x", "type": "list", "size": "1 item", "preview": "[1]"}]])


if __name__ == "__main__":
    unittest.main()
