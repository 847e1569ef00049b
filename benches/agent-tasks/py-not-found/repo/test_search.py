import unittest

from search import find_index


class TestSearch(unittest.TestCase):
    def test_found(self):
        self.assertEqual(find_index(["a", "b"], "b"), 1)

    def test_missing(self):
        self.assertEqual(find_index(["a", "b"], "z"), -1)


if __name__ == "__main__":
    unittest.main()
