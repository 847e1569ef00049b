import math
import unittest

from will_it_fly import will_it_fly


class TestWillItFly(unittest.TestCase):
    def test_1(self):
        self.assertTrue(will_it_fly([3, 2, 3], 9) is True)

    def test_2(self):
        self.assertTrue(will_it_fly([1, 2], 5) is False)

    def test_3(self):
        self.assertTrue(will_it_fly([3], 5) is True)

    def test_4(self):
        self.assertTrue(will_it_fly([3, 2, 3], 1) is False)

    def test_5(self):
        self.assertTrue(will_it_fly([1, 2, 3], 6) is False)

    def test_6(self):
        self.assertTrue(will_it_fly([5], 5) is True)


if __name__ == "__main__":
    unittest.main()
