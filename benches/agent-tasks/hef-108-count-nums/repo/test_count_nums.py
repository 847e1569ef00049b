import math
import unittest

from count_nums import count_nums


class TestCountNums(unittest.TestCase):
    def test_1(self):
        self.assertEqual(count_nums([]), 0)

    def test_2(self):
        self.assertEqual(count_nums([-1, -2, 0]), 0)

    def test_3(self):
        self.assertEqual(count_nums([1, 1, 2, -2, 3, 4, 5]), 6)

    def test_4(self):
        self.assertEqual(count_nums([1, 6, 9, -6, 0, 1, 5]), 5)

    def test_5(self):
        self.assertEqual(count_nums([1, 100, 98, -7, 1, -1]), 4)

    def test_6(self):
        self.assertEqual(count_nums([12, 23, 34, -45, -56, 0]), 5)

    def test_7(self):
        self.assertEqual(count_nums([-0, 1 ** 0]), 1)

    def test_8(self):
        self.assertEqual(count_nums([1]), 1)


if __name__ == "__main__":
    unittest.main()
