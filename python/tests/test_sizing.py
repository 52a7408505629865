"""Size estimates of pickles, made without pickling: close for flat values, in range for containers."""

import array
import pickle
import unittest

from relm import sizing


def pickled(value):
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


class SizingTests(unittest.TestCase):
    def assertNear(self, value, factor=1.5):
        actual = pickled(value)
        est = sizing.estimate(value)
        self.assertLessEqual(est, actual * factor, f"estimate {est} for {actual} pickled")
        self.assertGreaterEqual(est, actual / factor, f"estimate {est} for {actual} pickled")

    def test_flat_values(self):
        for value in ("x" * 10_000, b"y" * 10_000, bytearray(5_000), array.array("d", range(4_000))):
            self.assertNear(value, 1.1)

    def test_containers_from_a_sample(self):
        self.assertNear(list(range(100_000, 300_000)))
        self.assertNear([i / 3 for i in range(50_000)])
        # A dict is sampled from its first items (no random access): further off, still in range.
        self.assertNear({i: str(i) * 3 for i in range(20_000)}, 2.0)
        self.assertNear([(i, f"name {i}", i * 0.5) for i in range(20_000)])
        self.assertNear({str(i) for i in range(20_000)})

    def test_a_value_repeated_many_times_counts_once(self):
        label = "category-" * 10
        self.assertNear([label, "other"] * 50_000, 2.0)

    def test_objects_by_their_attributes(self):
        class Holder:
            def __init__(self):
                self.rows = list(range(100_000, 150_000))
                self.name = "n" * 1000

        est = sizing.estimate(Holder())
        self.assertGreater(est, 200_000)
        self.assertLess(est, 400_000)

    def test_a_huge_list_is_sized_from_a_few_of_its_elements(self):
        class Watched(list):
            looked_at = 0

            def __getitem__(self, i):
                Watched.looked_at += 1
                return super().__getitem__(i)

            def __iter__(self):
                raise AssertionError("walked the whole list")

        big = Watched(range(1_000_000, 3_000_000))
        self.assertEqual(sizing.estimate(big), 2 + 5 * len(big))
        self.assertEqual(Watched.looked_at, sizing.SAMPLE)

    def test_declared_nbytes_counts_and_a_getattr_does_not(self):
        class Declares:
            nbytes = 123_456

        class Answers:
            def __getattr__(self, name):
                return 10**12

        self.assertEqual(sizing.estimate(Declares()), 123_456)
        self.assertLess(sizing.estimate(Answers()), 1000)


if __name__ == "__main__":
    unittest.main()
