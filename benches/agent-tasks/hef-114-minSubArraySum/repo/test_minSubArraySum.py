import math
import unittest

from minSubArraySum import minSubArraySum


class TestMinsubarraysum(unittest.TestCase):
    def test_1(self):
        self.assertEqual(minSubArraySum([2, 3, 4, 1, 2, 4]), 1)

    def test_2(self):
        self.assertEqual(minSubArraySum([-1, -2, -3]), -6)

    def test_3(self):
        self.assertEqual(minSubArraySum([-1, -2, -3, 2, -10]), -14)

    def test_4(self):
        self.assertEqual(minSubArraySum([-9999999999999999]), -9999999999999999)

    def test_5(self):
        self.assertEqual(minSubArraySum([0, 10, 20, 1000000]), 0)

    def test_6(self):
        self.assertEqual(minSubArraySum([-1, -2, -3, 10, -5]), -6)

    def test_7(self):
        self.assertEqual(minSubArraySum([100, -1, -2, -3, 10, -5]), -6)

    def test_8(self):
        self.assertEqual(minSubArraySum([10, 11, 13, 8, 3, 4]), 3)

    def test_9(self):
        self.assertEqual(minSubArraySum([100, -33, 32, -1, 0, -2]), -33)

    def test_10(self):
        self.assertEqual(minSubArraySum([-10]), -10)

    def test_11(self):
        self.assertEqual(minSubArraySum([7]), 7)

    def test_12(self):
        self.assertEqual(minSubArraySum([1, -1]), -1)


if __name__ == "__main__":
    unittest.main()
