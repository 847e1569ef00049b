# kotef's tracer (see src/graph/nodes/repair/spectrum.rs): loaded as `sitecustomize` by the
# one run of the tests kotef traces, it records which functions of the project each test
# function called and which of their lines it ran, and writes them as JSON when the process
# exits. Lines cost much: the failing tests' (SPECTRUM_TRACE_FAILING, comma-separated; every
# test's when unset) are all traced, another test's only in a function's first call in it. Only the
# first process traces (a test's own subprocesses are left alone); nothing it does may fail
# the tests.
import os
import sys

try:
    _ROOT = os.environ.get("SPECTRUM_TRACE_ROOT")
    _OUT = os.environ.get("SPECTRUM_TRACE_OUT")
    _FIRST = os.environ.get("SPECTRUM_TRACE_PID")
    _FAILING = set(filter(None, os.environ.get("SPECTRUM_TRACE_FAILING", "").split(",")))
    if _ROOT and _OUT and not _FIRST:
        os.environ["SPECTRUM_TRACE_PID"] = str(os.getpid())
        import atexit
        import json
        import threading

        _root = os.path.realpath(_ROOT) + os.sep
        _files = {}
        _hits = {}
        _test = ["<setup>"]
        _seen = set()
        _MAX_TESTS = 400

        def _project(name):
            rel = _files.get(name)
            if rel is None:
                rel = ""
                if name and not name.startswith("<"):
                    path = os.path.realpath(name)
                    if path.startswith(_root):
                        rel = path[len(_root):]
                        parts = rel.split(os.sep)
                        if ".venv" in parts or "site-packages" in parts or parts[0] == ".kotef-spectrum":
                            rel = ""
                _files[name] = rel
            return rel

        def _lines(rel, first):
            per_test = _hits.get(_test[0])
            if per_test is None:
                if len(_hits) >= _MAX_TESTS:
                    return None
                per_test = _hits[_test[0]] = {}
            per_file = per_test.get(rel)
            if per_file is None:
                per_file = per_test[rel] = {}
            got = per_file.get(first)
            if got is None:
                got = per_file[first] = set()
            return got

        def _local(frame, event, arg):
            if event == "line":
                code = frame.f_code
                rel = _files.get(code.co_filename)
                if rel:
                    got = _lines(rel, code.co_firstlineno)
                    if got is not None:
                        got.add(frame.f_lineno)
            return _local

        def _global(frame, event, arg):
            code = frame.f_code
            rel = _project(code.co_filename)
            if not rel:
                return None
            if code.co_name.startswith("test"):
                _test[0] = code.co_name
            got = _lines(rel, code.co_firstlineno)
            if got is None:
                return None
            got.add(frame.f_lineno)
            if _FAILING and _test[0] not in _FAILING:
                # Another test: the lines of a function's first call in it only.
                key = (_test[0], code)
                if key in _seen:
                    return None
                _seen.add(key)
            return _local

        def _write():
            sys.settrace(None)
            try:
                data = dict(
                    (
                        t,
                        dict(
                            (f, dict((str(d), sorted(ls)) for d, ls in defs.items()))
                            for f, defs in per.items()
                        ),
                    )
                    for t, per in _hits.items()
                )
                with open(_OUT, "w") as out:
                    json.dump({"tests": data}, out)
            except Exception:
                pass

        atexit.register(_write)
        threading.settrace(_global)
        sys.settrace(_global)
except Exception:
    pass
