import math
import unittest

from int_to_mini_roman import int_to_mini_roman


class TestIntToMiniRoman(unittest.TestCase):
    def test_1(self):
        self.assertEqual(int_to_mini_roman(19), 'xix')

    def test_2(self):
        self.assertEqual(int_to_mini_roman(152), 'clii')

    def test_3(self):
        self.assertEqual(int_to_mini_roman(251), 'ccli')

    def test_4(self):
        self.assertEqual(int_to_mini_roman(426), 'cdxxvi')

    def test_5(self):
        self.assertEqual(int_to_mini_roman(500), 'd')

    def test_6(self):
        self.assertEqual(int_to_mini_roman(1), 'i')

    def test_7(self):
        self.assertEqual(int_to_mini_roman(4), 'iv')

    def test_8(self):
        self.assertEqual(int_to_mini_roman(43), 'xliii')

    def test_9(self):
        self.assertEqual(int_to_mini_roman(90), 'xc')

    def test_10(self):
        self.assertEqual(int_to_mini_roman(94), 'xciv')

    def test_11(self):
        self.assertEqual(int_to_mini_roman(532), 'dxxxii')

    def test_12(self):
        self.assertEqual(int_to_mini_roman(900), 'cm')

    def test_13(self):
        self.assertEqual(int_to_mini_roman(994), 'cmxciv')

    def test_14(self):
        self.assertEqual(int_to_mini_roman(1000), 'm')


if __name__ == "__main__":
    unittest.main()
