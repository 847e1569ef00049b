import math
import unittest

from incr_list import incr_list


class TestIncrList(unittest.TestCase):
    def test_1(self):
        self.assertEqual(incr_list([]), [])

    def test_2(self):
        self.assertEqual(incr_list([3, 2, 1]), [4, 3, 2])

    def test_3(self):
        self.assertEqual(incr_list([5, 2, 5, 2, 3, 3, 9, 0, 123]), [6, 3, 6, 3, 4, 4, 10, 1, 124])


if __name__ == "__main__":
    unittest.main()
