import math
import unittest

from next_smallest import next_smallest


class TestNextSmallest(unittest.TestCase):
    def test_1(self):
        self.assertEqual(next_smallest([1, 2, 3, 4, 5]), 2)

    def test_2(self):
        self.assertEqual(next_smallest([5, 1, 4, 3, 2]), 2)

    def test_3(self):
        self.assertEqual(next_smallest([]), None)

    def test_4(self):
        self.assertEqual(next_smallest([1, 1]), None)

    def test_5(self):
        self.assertEqual(next_smallest([1, 1, 1, 1, 0]), 1)

    def test_6(self):
        self.assertEqual(next_smallest([1, 0 ** 0]), None)

    def test_7(self):
        self.assertEqual(next_smallest([-35, 34, 12, -45]), -35)


if __name__ == "__main__":
    unittest.main()
