import math
import unittest

from digitSum import digitSum


class TestDigitsum(unittest.TestCase):
    def test_1(self):
        self.assertEqual(digitSum(''), 0)

    def test_2(self):
        self.assertEqual(digitSum('abAB'), 131)

    def test_3(self):
        self.assertEqual(digitSum('abcCd'), 67)

    def test_4(self):
        self.assertEqual(digitSum('helloE'), 69)

    def test_5(self):
        self.assertEqual(digitSum('woArBld'), 131)

    def test_6(self):
        self.assertEqual(digitSum('aAaaaXa'), 153)

    def test_7(self):
        self.assertEqual(digitSum(' How are yOu?'), 151)

    def test_8(self):
        self.assertEqual(digitSum('You arE Very Smart'), 327)


if __name__ == "__main__":
    unittest.main()
