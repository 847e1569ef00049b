import math
import unittest

from hex_key import hex_key


class TestHexKey(unittest.TestCase):
    def test_1(self):
        self.assertEqual(hex_key('AB'), 1)

    def test_2(self):
        self.assertEqual(hex_key('1077E'), 2)

    def test_3(self):
        self.assertEqual(hex_key('ABED1A33'), 4)

    def test_4(self):
        self.assertEqual(hex_key('2020'), 2)

    def test_5(self):
        self.assertEqual(hex_key('123456789ABCDEF0'), 6)

    def test_6(self):
        self.assertEqual(hex_key('112233445566778899AABBCCDDEEFF00'), 12)

    def test_7(self):
        self.assertEqual(hex_key([]), 0)


if __name__ == "__main__":
    unittest.main()
