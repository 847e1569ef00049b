import math
import unittest

from solve import solve


class TestSolve(unittest.TestCase):
    def test_1(self):
        self.assertEqual(solve(1000), '1')

    def test_2(self):
        self.assertEqual(solve(150), '110')

    def test_3(self):
        self.assertEqual(solve(147), '1100')

    def test_4(self):
        self.assertEqual(solve(333), '1001')

    def test_5(self):
        self.assertEqual(solve(963), '10010')


if __name__ == "__main__":
    unittest.main()
