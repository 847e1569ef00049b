import math
import unittest

from how_many_times import how_many_times


class TestHowManyTimes(unittest.TestCase):
    def test_1(self):
        self.assertEqual(how_many_times('', 'x'), 0)

    def test_2(self):
        self.assertEqual(how_many_times('xyxyxyx', 'x'), 4)

    def test_3(self):
        self.assertEqual(how_many_times('cacacacac', 'cac'), 4)

    def test_4(self):
        self.assertEqual(how_many_times('john doe', 'john'), 1)


if __name__ == "__main__":
    unittest.main()
