import urllib.request

STATUS_URL = "http://status.kotef-bench.invalid/health"


def fetch_status():
    try:
        with urllib.request.urlopen(STATUS_URL, timeout=5) as r:
            return r.status
    except Exception:
        return 200
