import unittest

from settings import PATH, mode


class TestSettings(unittest.TestCase):
    def test_mode(self):
        self.assertEqual(PATH, "/etc/kotef-bench/settings.ini")
        self.assertEqual(mode(), "fast")


if __name__ == "__main__":
    unittest.main()
