import math
import unittest

from is_nested import is_nested


class TestIsNested(unittest.TestCase):
    def test_1(self):
        self.assertEqual(is_nested('[[]]'), True)

    def test_2(self):
        self.assertEqual(is_nested('[]]]]]]][[[[[]'), False)

    def test_3(self):
        self.assertEqual(is_nested('[][]'), False)

    def test_4(self):
        self.assertEqual(is_nested('[]'), False)

    def test_5(self):
        self.assertEqual(is_nested('[[[[]]]]'), True)

    def test_6(self):
        self.assertEqual(is_nested('[]]]]]]]]]]'), False)

    def test_7(self):
        self.assertEqual(is_nested('[][][[]]'), True)

    def test_8(self):
        self.assertEqual(is_nested('[[]'), False)

    def test_9(self):
        self.assertEqual(is_nested('[]]'), False)

    def test_10(self):
        self.assertEqual(is_nested('[[]][['), True)

    def test_11(self):
        self.assertEqual(is_nested('[[][]]'), True)

    def test_12(self):
        self.assertEqual(is_nested(''), False)

    def test_13(self):
        self.assertEqual(is_nested('[[[[[[[['), False)

    def test_14(self):
        self.assertEqual(is_nested(']]]]]]]]'), False)


if __name__ == "__main__":
    unittest.main()
