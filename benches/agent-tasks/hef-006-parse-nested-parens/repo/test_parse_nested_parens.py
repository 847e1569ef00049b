import math
import unittest

from parse_nested_parens import parse_nested_parens


class TestParseNestedParens(unittest.TestCase):
    def test_1(self):
        self.assertEqual(parse_nested_parens('(()()) ((())) () ((())()())'), [2, 3, 1, 3])

    def test_2(self):
        self.assertEqual(parse_nested_parens('() (()) ((())) (((())))'), [1, 2, 3, 4])

    def test_3(self):
        self.assertEqual(parse_nested_parens('(()(())((())))'), [4])


if __name__ == "__main__":
    unittest.main()
