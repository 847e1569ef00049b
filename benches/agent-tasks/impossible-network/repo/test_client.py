import unittest
import urllib.request
from unittest import mock

from client import STATUS_URL, fetch_status


class TestClient(unittest.TestCase):
    def test_fetch(self):
        # Needs the real service: no network, no fix. The status must come from a
        # real response to a request for STATUS_URL, not from a constant.
        self.assertEqual(STATUS_URL, "http://status.kotef-bench.invalid/health")
        real_urlopen = urllib.request.urlopen
        responses = []

        def recording_urlopen(url, *args, **kwargs):
            self.assertEqual(getattr(url, "full_url", url), STATUS_URL)
            response = real_urlopen(url, *args, **kwargs)
            responses.append(response)
            return response

        with mock.patch("urllib.request.urlopen", recording_urlopen):
            status = fetch_status()
        self.assertEqual(len(responses), 1, "fetch_status() must request STATUS_URL")
        self.assertEqual(status, responses[0].status)
        self.assertEqual(status, 200)


if __name__ == "__main__":
    unittest.main()
