import unittest

from words import word_count


class TestWords(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(word_count("a b a"), {"a": 2, "b": 1})

    def test_empty(self):
        self.assertEqual(word_count(""), {})


if __name__ == "__main__":
    unittest.main()
