import math
import unittest

from sum_to_n import sum_to_n


class TestSumToN(unittest.TestCase):
    def test_1(self):
        self.assertEqual(sum_to_n(1), 1)

    def test_2(self):
        self.assertEqual(sum_to_n(6), 21)

    def test_3(self):
        self.assertEqual(sum_to_n(11), 66)

    def test_4(self):
        self.assertEqual(sum_to_n(30), 465)

    def test_5(self):
        self.assertEqual(sum_to_n(100), 5050)


if __name__ == "__main__":
    unittest.main()
