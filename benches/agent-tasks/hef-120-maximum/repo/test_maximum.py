import math
import unittest

from maximum import maximum


class TestMaximum(unittest.TestCase):
    def test_1(self):
        self.assertEqual(maximum([-3, -4, 5], 3), [-4, -3, 5])

    def test_2(self):
        self.assertEqual(maximum([4, -4, 4], 2), [4, 4])

    def test_3(self):
        self.assertEqual(maximum([-3, 2, 1, 2, -1, -2, 1], 1), [2])

    def test_4(self):
        self.assertEqual(maximum([123, -123, 20, 0, 1, 2, -3], 3), [2, 20, 123])

    def test_5(self):
        self.assertEqual(maximum([-123, 20, 0, 1, 2, -3], 4), [0, 1, 2, 20])

    def test_6(self):
        self.assertEqual(maximum([5, 15, 0, 3, -13, -8, 0], 7), [-13, -8, 0, 0, 3, 5, 15])

    def test_7(self):
        self.assertEqual(maximum([-1, 0, 2, 5, 3, -10], 2), [3, 5])

    def test_8(self):
        self.assertEqual(maximum([1, 0, 5, -7], 1), [5])

    def test_9(self):
        self.assertEqual(maximum([4, -4], 2), [-4, 4])

    def test_10(self):
        self.assertEqual(maximum([-10, 10], 2), [-10, 10])

    def test_11(self):
        self.assertEqual(maximum([1, 2, 3, -23, 243, -400, 0], 0), [])


if __name__ == "__main__":
    unittest.main()
