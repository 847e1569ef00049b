import unittest

from stats import mean, median


class TestMedian(unittest.TestCase):
    def test_odd(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_even(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_mean_still_works(self):
        self.assertEqual(mean([1, 3]), 2)


if __name__ == "__main__":
    unittest.main()
