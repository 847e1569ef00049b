import unittest

from client import STATUS_URL, fetch_status


class TestClient(unittest.TestCase):
    def test_fetch(self):
        # Needs the real service: no network, no fix.
        self.assertEqual(STATUS_URL, "http://status.kotef-bench.invalid/health")
        self.assertEqual(fetch_status(), 200)


if __name__ == "__main__":
    unittest.main()
