# kotef's tracer (see src/graph/nodes/repair/spectrum.rs): loaded as `sitecustomize` by the
# one run of the tests kotef traces, it records which functions of the project each test
# function called and which of their lines it ran, and writes them as JSON when the process
# exits. Lines cost much: the failing tests' (SPECTRUM_TRACE_FAILING, comma-separated; every
# test's when unset) are all traced, another test's only in a function's first call in it. Only the
# first process traces (a test's own subprocesses are left alone); nothing it does may fail
# the tests. The failing tests run first: unittest's loader lists them first in their class,
# and pytest (which loads this module as a plugin through PYTEST_PLUGINS) puts them first among
# the items it collected. Past SPECTRUM_TRACE_DEADLINE seconds (when set with the failing
# tests) a test that starts is not traced unless it is a failing one, and once every failing
# test has run the record is written and the process ends, at the deadline itself or at the
# next test after it (the rest of the tests' outcome does not matter).
import os
import sys

try:
    _ROOT = os.environ.get("SPECTRUM_TRACE_ROOT")
    _OUT = os.environ.get("SPECTRUM_TRACE_OUT")
    _FIRST = os.environ.get("SPECTRUM_TRACE_PID")
    _FAILING = set(filter(None, os.environ.get("SPECTRUM_TRACE_FAILING", "").split(",")))
    try:
        _DEADLINE = float(os.environ.get("SPECTRUM_TRACE_DEADLINE") or 0)
    except ValueError:
        _DEADLINE = 0.0
    if _ROOT and _OUT and not _FIRST:
        os.environ["SPECTRUM_TRACE_PID"] = str(os.getpid())
        import atexit
        import json
        import threading
        import time

        _start = time.monotonic()

        _root = os.path.realpath(_ROOT) + os.sep
        _files = {}
        _hits = {}
        _test = ["<setup>"]
        _seen = set()
        _done = set()
        _late = [False]
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

        _halt = [False]

        def _local(frame, event, arg):
            if _halt[0]:
                return None
            if event == "line":
                code = frame.f_code
                rel = _files.get(code.co_filename)
                if rel:
                    got = _lines(rel, code.co_firstlineno)
                    if got is not None:
                        got.add(frame.f_lineno)
            return _local

        def _global(frame, event, arg):
            if _halt[0]:
                return None
            code = frame.f_code
            rel = _project(code.co_filename)
            if not rel:
                return None
            name = code.co_name
            if name.startswith("test") and name != _test[0]:
                _switch(name)
            if _late[0] and _test[0] not in _FAILING:
                return None
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

        def _switch(name):
            # A new test starts: past the deadline, end the run once every failing test ran.
            if _test[0] in _FAILING:
                _done.add(_test[0])
            _test[0] = name
            if _DEADLINE > 0 and _FAILING and not _late[0]:
                _late[0] = time.monotonic() - _start > _DEADLINE
            if _late[0] and _FAILING <= _done:
                _write(cut=True)
                os._exit(0)

        def _write(cut=False):
            sys.settrace(None)
            _halt[0] = True
            # From the deadline's thread the tests' thread may still be adding a line: retry.
            for _ in range(5):
                try:
                    data = dict(
                        (
                            t,
                            dict(
                                (f, dict((str(d), sorted(ls)) for d, ls in list(defs.items())))
                                for f, defs in list(per.items())
                            ),
                        )
                        for t, per in list(_hits.items())
                    )
                    with open(_OUT, "w") as out:
                        json.dump({"tests": data, "cut": cut}, out)
                    return
                except RuntimeError:
                    time.sleep(0.01)
                except Exception:
                    return

        def _at_deadline():
            # The failing tests ran first: once they all have, the run ends here.
            _late[0] = True
            if _FAILING <= _done:
                _write(cut=True)
                os._exit(0)

        def _first(names):
            return [n for n in names if n in _FAILING] + [n for n in names if n not in _FAILING]

        def pytest_collection_modifyitems(session, config, items):
            # A stable sort: the failing tests first, the others in their order.
            name = lambda item: getattr(item, "name", "").split("[")[0]
            items.sort(key=lambda item: name(item) not in _FAILING)

        if _FAILING:
            try:
                import unittest.loader

                _names = unittest.loader.TestLoader.getTestCaseNames
                unittest.loader.TestLoader.getTestCaseNames = lambda self, cls: _first(
                    list(_names(self, cls))
                )
            except Exception:
                pass
            if _DEADLINE > 0:
                _timer = threading.Timer(_DEADLINE, _at_deadline)
                _timer.daemon = True
                _timer.start()

        atexit.register(_write)
        threading.settrace(_global)
        sys.settrace(_global)
except Exception:
    pass
