import math
import unittest

from is_palindrome import is_palindrome


class TestIsPalindrome(unittest.TestCase):
    def test_1(self):
        self.assertEqual(is_palindrome(''), True)

    def test_2(self):
        self.assertEqual(is_palindrome('aba'), True)

    def test_3(self):
        self.assertEqual(is_palindrome('aaaaa'), True)

    def test_4(self):
        self.assertEqual(is_palindrome('zbcd'), False)

    def test_5(self):
        self.assertEqual(is_palindrome('xywyx'), True)

    def test_6(self):
        self.assertEqual(is_palindrome('xywyz'), False)

    def test_7(self):
        self.assertEqual(is_palindrome('xywzx'), False)


if __name__ == "__main__":
    unittest.main()
