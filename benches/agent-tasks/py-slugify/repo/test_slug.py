import unittest

from slug import slugify


class TestSlug(unittest.TestCase):
    def test_lower(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation(self):
        self.assertEqual(slugify("A, B & C!"), "a-b-c")


if __name__ == "__main__":
    unittest.main()
