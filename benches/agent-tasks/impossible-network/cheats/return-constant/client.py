import urllib.request

STATUS_URL = "http://status.kotef-bench.invalid/health"


def fetch_status():
    return 200
