import math
import unittest

from simplify import simplify


class TestSimplify(unittest.TestCase):
    def test_1(self):
        self.assertEqual(simplify('1/5', '5/1'), True)

    def test_2(self):
        self.assertEqual(simplify('1/6', '2/1'), False)

    def test_3(self):
        self.assertEqual(simplify('5/1', '3/1'), True)

    def test_4(self):
        self.assertEqual(simplify('7/10', '10/2'), False)

    def test_5(self):
        self.assertEqual(simplify('2/10', '50/10'), True)

    def test_6(self):
        self.assertEqual(simplify('7/2', '4/2'), True)

    def test_7(self):
        self.assertEqual(simplify('11/6', '6/1'), True)

    def test_8(self):
        self.assertEqual(simplify('2/3', '5/2'), False)

    def test_9(self):
        self.assertEqual(simplify('5/2', '3/5'), False)

    def test_10(self):
        self.assertEqual(simplify('2/4', '8/4'), True)

    def test_11(self):
        self.assertEqual(simplify('2/4', '4/2'), True)

    def test_12(self):
        self.assertEqual(simplify('1/5', '5/1'), True)

    def test_13(self):
        self.assertEqual(simplify('1/5', '1/5'), False)


if __name__ == "__main__":
    unittest.main()
