#!/usr/bin/env python3
"""Imports real-project tasks from BugsInPy (github.com/soarsmu/BugsInPy) into
benches/real-tasks/: per project one git bundle (`<project>.bundle`) holding, per task, one
orphan commit whose tree is the project at the buggy commit with the fixed commit's test files,
and per task a directory `<project>-<bug>/` with `task.json`, `solution/` (the fix commit's
non-test files) and `cheats/stub-tests/` (the failing tests' bodies replaced by `pass`).

It needs bare clones of BugsInPy and of each project (GitHub; CI does not run this script):

    scripts/import-bugsinpy.py --bugsinpy /path/BugsInPy.git \
        --mirror youtube-dl=/path/youtube-dl.git --mirror tornado=/path/tornado.git \
        youtube-dl:1,4,11 tornado:9,11

The held-out third is drawn here, per project, with a fixed seed and before any result is seen
(`held_out` in task.json). `scripts/real-bench.py --record-known-failing` then records, per task,
the tests of the test file that fail even with the real fix in the built environment (they are
left out of the judge's whole-file run).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benches" / "real-tasks"
SEED = "kotef-real-tasks-1"

PROJECTS = {
    "youtube-dl": {"url": "https://github.com/ytdl-org/youtube-dl", "licence": "Unlicense",
                   "deps": []},
    "tornado": {"url": "https://github.com/tornadoweb/tornado", "licence": "Apache-2.0",
                "deps": []},
    "black": {"url": "https://github.com/psf/black", "licence": "MIT",
              "deps": ["click", "attrs", "appdirs", "toml", "typed-ast", "regex", "pathspec",
                       "aiohttp", "aiohttp-cors", "dataclasses", "mypy-extensions",
                       "typing-extensions", "multidict", "yarl", "async-timeout", "chardet",
                       "idna"]},
    "luigi": {"url": "https://github.com/spotify/luigi", "licence": "Apache-2.0",
              "deps": ["tornado", "python-daemon", "python-dateutil", "mock", "lockfile",
                       "docutils", "six", "toml", "psutil", "requests", "urllib3", "certifi",
                       "idna", "chardet", "pytz", "nose"]},
    "fastapi": {"url": "https://github.com/tiangolo/fastapi", "licence": "MIT",
                "deps": ["starlette", "pydantic", "requests", "email-validator", "dnspython",
                         "idna", "certifi", "chardet", "urllib3", "python-multipart",
                         "async-exit-stack", "async-generator", "typing-extensions"]},
    "scrapy": {"url": "https://github.com/scrapy/scrapy", "licence": "BSD-3-Clause",
               "deps": ["twisted", "lxml", "parsel", "w3lib", "queuelib", "cssselect",
                        "pyopenssl", "service-identity", "zope.interface", "pydispatcher",
                        "protego", "six", "testfixtures", "mock", "cryptography", "cffi",
                        "pycparser", "attrs", "automat", "constantly", "hyperlink",
                        "incremental", "pyhamcrest", "pyasn1", "pyasn1-modules", "idna",
                        "jmespath", "pillow", "botocore", "brotlipy", "leveldb", "sybil"]},
}


SKIP_CONFTEST = """import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.skip(reason="not relevant here"))
"""


def git(gitdir, *args, env=None, text=True):
    r = subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, env=env)
    if r.returncode != 0:
        sys.exit(f"import-bugsinpy: git {' '.join(args)}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode("utf-8", "replace") if text else r.stdout


def decode(raw):
    """BugsInPy's requirements files are UTF-8 or UTF-16 (with a BOM)."""
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        return raw.decode("utf-16")
    return raw.decode("utf-8", "replace")


def bug_files(bugsinpy, project, bug):
    base = f"HEAD:projects/{project}/bugs/{bug}/"
    info = git(bugsinpy, "show", base + "bug.info")
    kv = dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', info))
    run_test = git(bugsinpy, "show", base + "run_test.sh")
    r = subprocess.run(["git", "--git-dir", str(bugsinpy), "show", base + "requirements.txt"],
                       capture_output=True)
    reqs = decode(r.stdout) if r.returncode == 0 else ""
    return kv, run_test, reqs


def pins(reqs, wanted):
    """The BugsInPy environment's pins for the packages this project's tests need."""
    norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
    want = {norm(w) for w in wanted}
    out = []
    for line in reqs.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9_.\-]+)==([^\s;#]+)", line)
        if m and norm(m.group(1)) in want:
            out.append(f"{m.group(1)}=={m.group(2)}")
    return sorted(out, key=str.lower)


def test_ids(run_test):
    """The test ids BugsInPy's run_test.sh runs, and its runner (unittest or pytest)."""
    ids, runner = [], None
    for line in run_test.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[:3] == ["python", "-m", "unittest"]:
            runner = "unittest"
            ids += [w for w in words[3:] if not w.startswith("-")]
        elif words[0] == "pytest":
            runner = "pytest"
            ids += [w for w in words[1:] if not w.startswith("-")]
        else:
            sys.exit(f"import-bugsinpy: unknown runner in {line!r}")
    return runner, list(dict.fromkeys(ids))


def pytest_id(tree_files, runner, tid):
    """A unittest id (pkg.mod.Class.test) as a pytest node id (pkg/mod.py::Class::test)."""
    if runner == "pytest":
        return tid
    parts = tid.split(".")
    for n in range(len(parts), 0, -1):
        path = "/".join(parts[:n]) + ".py"
        if path in tree_files:
            return "::".join([path] + parts[n:])
        path = "/".join(parts[:n]) + "/__init__.py"
        if path in tree_files:
            return "::".join([path] + parts[n:])
    sys.exit(f"import-bugsinpy: no file for test id {tid}")


def is_test_path(path):
    return bool(re.search(r"(^|/)(tests?|testing)(/|$)|(^|/)test_[^/]*$|_test\.py$", path))


def stub_tests(text, names):
    """The test file with each named test's body replaced by `pass` (the cheat); the function
    ranges come from the syntax tree, so strings and comments in a body cannot mislead it."""
    import ast
    lines = text.splitlines(keepends=True)
    cuts, hit = [], set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            first = node.body[0]
            start = first.lineno - 1
            if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None),
                                                          ast.Constant) and len(node.body) > 1:
                start = node.body[1].lineno - 1  # keep the docstring
            indent = " " * first.col_offset
            cuts.append((start, node.end_lineno, indent))
            hit.add(node.name)
    for start, end, indent in sorted(cuts, reverse=True):
        lines[start:end] = [indent + "pass\n"]
    return "".join(lines), hit


def goal_text(project, ids, command, test_files):
    names = ", ".join(f"`{t}`" for t in ids)
    files = ", ".join(f"`{f}`" for f in test_files)
    return (f"Bug in {project}: {'the test' if len(ids) == 1 else 'the tests'} {names} "
            f"({files}) {'fails' if len(ids) == 1 else 'fail'} on the current code. The test "
            f"describes the behaviour we want. Please fix the code so that `{command}` passes "
            f"(the project's environment is in `.venv`). Do not change the tests.")


def import_task(args, project, bug, mirror, scratch):
    kv, run_test, reqs = bug_files(args.bugsinpy, project, bug)
    buggy, fixed = kv["buggy_commit_id"], kv["fixed_commit_id"]
    changed = []
    for line in git(mirror, "diff", "--name-status", "--no-renames", buggy, fixed).splitlines():
        status, path = line.split("\t", 1)
        changed.append((status, path))
    tests = [(s, p) for s, p in changed if is_test_path(p)]
    source = [(s, p) for s, p in changed if not is_test_path(p)]
    if not source or any(s == "D" for s, _ in source):
        return None, f"{project} {bug}: fix deletes or has no source files"
    # The task's tree: the buggy tree with the fixed test files.
    env = dict(os.environ, GIT_INDEX_FILE=str(scratch / f"index-{project}-{bug}"))
    git(scratch, "read-tree", buggy, env=env)
    for status, path in tests:
        if status == "D":
            git(scratch, "update-index", "--force-remove", path, env=env)
        else:
            blob = git(scratch, "rev-parse", f"{fixed}:{path}").strip()
            mode = git(scratch, "ls-tree", fixed, path).split()[0]
            git(scratch, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}", env=env)
    tree = git(scratch, "write-tree", env=env).strip()
    msg = (f"{project} bug {bug} (BugsInPy): the tree of {buggy} with the test files of "
           f"{fixed}\n")
    cenv = dict(os.environ, GIT_AUTHOR_NAME="kotef bench", GIT_AUTHOR_EMAIL="bench@localhost",
                GIT_COMMITTER_NAME="kotef bench", GIT_COMMITTER_EMAIL="bench@localhost",
                GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    r = subprocess.run(["git", "--git-dir", str(scratch), "commit-tree", tree, "-m", msg],
                       capture_output=True, text=True, env=cenv, check=True)
    commit = r.stdout.strip()
    ref = f"refs/tasks/{project}-{bug}"
    git(scratch, "update-ref", ref, commit)
    tree_files = set(git(scratch, "ls-tree", "-r", "--name-only", commit).splitlines())

    runner, ids = test_ids(run_test)
    py = ".venv/bin/python"
    if runner == "unittest":
        command = f"{py} -m unittest -q " + " ".join(ids)
    else:
        command = f"{py} -m pytest -q -p no:cacheprovider " + " ".join(ids)
    nodes = [pytest_id(tree_files, runner, t) for t in ids]
    test_files = sorted({n.split("::")[0] for n in nodes})
    name = f"{project}-{bug}"
    d = OUT / name
    known = []  # what --record-known-failing found for this very tree is kept
    if (d / "task.json").is_file():
        old = json.loads((d / "task.json").read_text())
        known = old.get("known_failing", []) if old.get("commit") == commit else []
    if d.exists():
        shutil.rmtree(d)
    for _, path in source:
        dest = d / "solution" / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(git(mirror, "show", f"{fixed}:{path}", text=False))
    funcs = {n.split("::")[-1] for n in nodes if n.count("::") >= 1}
    for f in test_files:
        text = git(scratch, "show", f"{commit}:{f}")
        stubbed, hit = stub_tests(text, funcs)
        if hit:
            dest = d / "cheats" / "stub-tests" / f
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(stubbed)
    if runner == "pytest":
        # A second cheat where pytest is the runner: a conftest.py that skips every test
        # (pytest exits 0 when all were skipped).
        dest = d / "cheats" / "skip-conftest" / "conftest.py"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(SKIP_CONFTEST)
    protected = sorted({p for s, p in tests if s != "D"} | set(test_files))
    pyver = kv.get("python_version", "3.8.3")
    task = {
        "goal": goal_text(project, ids, command, test_files),
        "test_command": command,
        "failing_tests": nodes,
        "test_files": test_files,
        "known_failing": known,
        "protected": protected,
        "bundle": f"{project}.bundle",
        "ref": ref,
        "commit": commit,
        "python": ".".join(pyver.split(".")[:2]),
        "requirements": pins(reqs, PROJECTS[project]["deps"]),
        "held_out": False,
        "kind": "fix",
        "source": {
            "dataset": "BugsInPy",
            "dataset_url": f"https://github.com/soarsmu/BugsInPy/tree/master/projects/{project}/bugs/{bug}",
            "project": project,
            "bug": bug,
            "url": PROJECTS[project]["url"],
            "buggy_commit": buggy,
            "fixed_commit": fixed,
            "fix_url": f"{PROJECTS[project]['url']}/commit/{fixed}",
            "licence": f"{PROJECTS[project]['licence']} (the project's code); BugsInPy's "
                       "metadata (bug.info, run_test.sh) from github.com/soarsmu/BugsInPy",
        },
    }
    d.mkdir(parents=True, exist_ok=True)
    (d / "task.json").write_text(json.dumps(task, indent=1) + "\n")
    return task, None


def draw_held_out(names_by_project):
    """A third of each project's tasks, by a seeded draw (before any result is seen)."""
    held = set()
    for project, names in sorted(names_by_project.items()):
        names = sorted(names, key=lambda n: int(n.rsplit("-", 1)[1]))
        k = round(len(names) / 3)
        held |= set(random.Random(f"{SEED}-{project}").sample(names, k))
    return held


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bugsinpy", required=True, type=Path, help="bare clone of BugsInPy")
    ap.add_argument("--mirror", action="append", default=[], help="PROJECT=bare clone")
    ap.add_argument("--drop", nargs="*", default=[],
                    help="tasks (PROJECT-BUG) that failed --check-tasks: drawn for the held-out "
                         "third like the rest (so the draw does not move), then left out")
    ap.add_argument("tasks", nargs="+", help="PROJECT:BUG,BUG,... (the whole set, each time)")
    args = ap.parse_args()
    mirrors = dict(m.split("=", 1) for m in args.mirror)
    OUT.mkdir(parents=True, exist_ok=True)
    by_project, dropped = {}, []
    for spec in args.tasks:
        project, bugs = spec.split(":")
        if project not in PROJECTS:
            sys.exit(f"import-bugsinpy: {project} is not a known project")
        mirror = Path(mirrors[project])
        with tempfile.TemporaryDirectory(prefix="bugsinpy-") as tmp:
            scratch = Path(tmp) / "scratch.git"
            subprocess.run(["git", "init", "-q", "--bare", str(scratch)], check=True)
            (scratch / "objects" / "info" / "alternates").write_text(
                str((mirror / "objects").resolve()) + "\n")
            for bug in [int(b) for b in bugs.split(",")]:
                task, why = import_task(args, project, bug, mirror, scratch)
                if task is None:
                    dropped.append(why)
                    continue
                by_project.setdefault(project, []).append(f"{project}-{bug}")
            bundle = OUT / f"{project}.bundle"
            refs = [f"refs/tasks/{n}" for n in by_project.get(project, [])
                    if n not in args.drop]
            subprocess.run(["git", "--git-dir", str(scratch), "bundle", "create", "-q",
                            str(bundle), *refs], check=True)
    held = draw_held_out(by_project)
    for n in args.drop:
        shutil.rmtree(OUT / n, ignore_errors=True)
        dropped.append(f"{n}: --drop")
    held -= set(args.drop)
    for names in by_project.values():
        for n in [n for n in names if n not in args.drop]:
            p = OUT / n / "task.json"
            t = json.loads(p.read_text())
            t["held_out"] = n in held
            p.write_text(json.dumps(t, indent=1) + "\n")
    total = sum(len(v) for v in by_project.values()) - len(set(args.drop))
    print(f"imported {total} tasks, {len(held)} held out; dropped: {dropped or 'none'}")


if __name__ == "__main__":
    main()
