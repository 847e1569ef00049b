import math
import unittest

from x_or_y import x_or_y


class TestXOrY(unittest.TestCase):
    def test_1(self):
        self.assertEqual(x_or_y(7, 34, 12), 34)

    def test_2(self):
        self.assertEqual(x_or_y(15, 8, 5), 5)

    def test_3(self):
        self.assertEqual(x_or_y(3, 33, 5212), 33)

    def test_4(self):
        self.assertEqual(x_or_y(1259, 3, 52), 3)

    def test_5(self):
        self.assertEqual(x_or_y(7919, -1, 12), -1)

    def test_6(self):
        self.assertEqual(x_or_y(3609, 1245, 583), 583)

    def test_7(self):
        self.assertEqual(x_or_y(91, 56, 129), 129)

    def test_8(self):
        self.assertEqual(x_or_y(6, 34, 1234), 1234)

    def test_9(self):
        self.assertEqual(x_or_y(1, 2, 0), 0)

    def test_10(self):
        self.assertEqual(x_or_y(2, 2, 0), 2)


if __name__ == "__main__":
    unittest.main()
