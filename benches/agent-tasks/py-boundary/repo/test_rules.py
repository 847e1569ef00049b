import unittest

from rules import can_vote


class TestRules(unittest.TestCase):
    def test_eighteen(self):
        self.assertTrue(can_vote(18))

    def test_seventeen(self):
        self.assertFalse(can_vote(17))


if __name__ == "__main__":
    unittest.main()
