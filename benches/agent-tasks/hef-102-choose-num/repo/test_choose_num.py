import math
import unittest

from choose_num import choose_num


class TestChooseNum(unittest.TestCase):
    def test_1(self):
        self.assertEqual(choose_num(12, 15), 14)

    def test_2(self):
        self.assertEqual(choose_num(13, 12), -1)

    def test_3(self):
        self.assertEqual(choose_num(33, 12354), 12354)

    def test_4(self):
        self.assertEqual(choose_num(5234, 5233), -1)

    def test_5(self):
        self.assertEqual(choose_num(6, 29), 28)

    def test_6(self):
        self.assertEqual(choose_num(27, 10), -1)

    def test_7(self):
        self.assertEqual(choose_num(7, 7), -1)

    def test_8(self):
        self.assertEqual(choose_num(546, 546), 546)


if __name__ == "__main__":
    unittest.main()
