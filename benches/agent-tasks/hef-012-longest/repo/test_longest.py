import math
import unittest

from longest import longest


class TestLongest(unittest.TestCase):
    def test_1(self):
        self.assertEqual(longest([]), None)

    def test_2(self):
        self.assertEqual(longest(['x', 'y', 'z']), 'x')

    def test_3(self):
        self.assertEqual(longest(['x', 'yyy', 'zzzz', 'www', 'kkkk', 'abc']), 'zzzz')


if __name__ == "__main__":
    unittest.main()
