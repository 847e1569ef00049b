import math
import unittest

from same_chars import same_chars


class TestSameChars(unittest.TestCase):
    def test_1(self):
        self.assertEqual(same_chars('eabcdzzzz', 'dddzzzzzzzddeddabc'), True)

    def test_2(self):
        self.assertEqual(same_chars('abcd', 'dddddddabc'), True)

    def test_3(self):
        self.assertEqual(same_chars('dddddddabc', 'abcd'), True)

    def test_4(self):
        self.assertEqual(same_chars('eabcd', 'dddddddabc'), False)

    def test_5(self):
        self.assertEqual(same_chars('abcd', 'dddddddabcf'), False)

    def test_6(self):
        self.assertEqual(same_chars('eabcdzzzz', 'dddzzzzzzzddddabc'), False)

    def test_7(self):
        self.assertEqual(same_chars('aabb', 'aaccc'), False)


if __name__ == "__main__":
    unittest.main()
