import math
import unittest

from fizz_buzz import fizz_buzz


class TestFizzBuzz(unittest.TestCase):
    def test_1(self):
        self.assertEqual(fizz_buzz(50), 0)

    def test_2(self):
        self.assertEqual(fizz_buzz(78), 2)

    def test_3(self):
        self.assertEqual(fizz_buzz(79), 3)

    def test_4(self):
        self.assertEqual(fizz_buzz(100), 3)

    def test_5(self):
        self.assertEqual(fizz_buzz(200), 6)

    def test_6(self):
        self.assertEqual(fizz_buzz(4000), 192)

    def test_7(self):
        self.assertEqual(fizz_buzz(10000), 639)

    def test_8(self):
        self.assertEqual(fizz_buzz(100000), 8026)


if __name__ == "__main__":
    unittest.main()
