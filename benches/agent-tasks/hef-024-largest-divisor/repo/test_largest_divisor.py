import math
import unittest

from largest_divisor import largest_divisor


class TestLargestDivisor(unittest.TestCase):
    def test_1(self):
        self.assertEqual(largest_divisor(3), 1)

    def test_2(self):
        self.assertEqual(largest_divisor(7), 1)

    def test_3(self):
        self.assertEqual(largest_divisor(10), 5)

    def test_4(self):
        self.assertEqual(largest_divisor(100), 50)

    def test_5(self):
        self.assertEqual(largest_divisor(49), 7)


if __name__ == "__main__":
    unittest.main()
