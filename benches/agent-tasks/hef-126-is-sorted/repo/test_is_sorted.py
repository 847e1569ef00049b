import math
import unittest

from is_sorted import is_sorted


class TestIsSorted(unittest.TestCase):
    def test_1(self):
        self.assertEqual(is_sorted([5]), True)

    def test_2(self):
        self.assertEqual(is_sorted([1, 2, 3, 4, 5]), True)

    def test_3(self):
        self.assertEqual(is_sorted([1, 3, 2, 4, 5]), False)

    def test_4(self):
        self.assertEqual(is_sorted([1, 2, 3, 4, 5, 6]), True)

    def test_5(self):
        self.assertEqual(is_sorted([1, 2, 3, 4, 5, 6, 7]), True)

    def test_6(self):
        self.assertEqual(is_sorted([1, 3, 2, 4, 5, 6, 7]), False)

    def test_7(self):
        self.assertEqual(is_sorted([]), True)

    def test_8(self):
        self.assertEqual(is_sorted([1]), True)

    def test_9(self):
        self.assertEqual(is_sorted([3, 2, 1]), False)

    def test_10(self):
        self.assertEqual(is_sorted([1, 2, 2, 2, 3, 4]), False)

    def test_11(self):
        self.assertEqual(is_sorted([1, 2, 3, 3, 3, 4]), False)

    def test_12(self):
        self.assertEqual(is_sorted([1, 2, 2, 3, 3, 4]), True)

    def test_13(self):
        self.assertEqual(is_sorted([1, 2, 3, 4]), True)


if __name__ == "__main__":
    unittest.main()
