import math
import unittest

from is_equal_to_sum_even import is_equal_to_sum_even


class TestIsEqualToSumEven(unittest.TestCase):
    def test_1(self):
        self.assertEqual(is_equal_to_sum_even(4), False)

    def test_2(self):
        self.assertEqual(is_equal_to_sum_even(6), False)

    def test_3(self):
        self.assertEqual(is_equal_to_sum_even(8), True)

    def test_4(self):
        self.assertEqual(is_equal_to_sum_even(10), True)

    def test_5(self):
        self.assertEqual(is_equal_to_sum_even(11), False)

    def test_6(self):
        self.assertEqual(is_equal_to_sum_even(12), True)

    def test_7(self):
        self.assertEqual(is_equal_to_sum_even(13), False)

    def test_8(self):
        self.assertEqual(is_equal_to_sum_even(16), True)


if __name__ == "__main__":
    unittest.main()
