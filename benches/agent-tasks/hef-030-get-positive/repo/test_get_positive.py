import math
import unittest

from get_positive import get_positive


class TestGetPositive(unittest.TestCase):
    def test_1(self):
        self.assertEqual(get_positive([-1, -2, 4, 5, 6]), [4, 5, 6])

    def test_2(self):
        self.assertEqual(get_positive([5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10]), [5, 3, 2, 3, 3, 9, 123, 1])

    def test_3(self):
        self.assertEqual(get_positive([-1, -2]), [])

    def test_4(self):
        self.assertEqual(get_positive([]), [])


if __name__ == "__main__":
    unittest.main()
