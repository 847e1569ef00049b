import unittest

from version import version


class TestVersion(unittest.TestCase):
    def test_is_one(self):
        self.assertEqual(version(), "1.0")

    def test_is_two(self):
        self.assertEqual(version(), "2.0")


if __name__ == "__main__":
    unittest.main()
