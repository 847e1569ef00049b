import unittest

from text import shout
from util import exclaim


class TestText(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("hi"), "HI!")

    def test_exclaim(self):
        self.assertEqual(exclaim("ok"), "ok!")


if __name__ == "__main__":
    unittest.main()
