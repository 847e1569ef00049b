#!/usr/bin/env python3
"""Imports real-project tasks from BugsInPy (github.com/soarsmu/BugsInPy) into
benches/real-tasks/: per project one git bundle (`<project>.bundle`) holding, per task, one
orphan commit whose tree is the project at the buggy commit with the fixed commit's test files,
and per task a directory `<project>-<bug>/` with `task.json`, `solution/` (the fix commit's
non-test files) and `cheats/stub-tests/` (the failing tests' bodies replaced by `pass`).

It needs bare clones of BugsInPy and of each project (GitHub; CI does not run this script).
The whole set, both draws, is re-created by one command (M: where the clones are; on the
bench machine /work/.mirror, each as <owner>+<name>/repo):

    scripts/import-bugsinpy.py --bugsinpy $M/soarsmu+BugsInPy/repo \
        --mirror youtube-dl=$M/ytdl-org+youtube-dl/repo --mirror tornado=$M/tornadoweb+tornado/repo \
        --mirror black=$M/psf+black/repo --mirror luigi=$M/spotify+luigi/repo \
        --mirror fastapi=$M/tiangolo+fastapi/repo --mirror scrapy=$M/scrapy+scrapy/repo \
        --drop "black-3=the fixed black.py imports _black_version, which setuptools_scm writes at install" \
               "black-21=its test passes as given in this environment" \
        --draw2 2 \
        youtube-dl:1,3,4,11,13,17,20,29,43 tornado:2,7,8,9,11,14,16 black:3,10,13,17,19,21 \
        luigi:3,13,17,22,32 fastapi:4,5,7,10,14 scrapy:17,20,28,29,37

(the draw-2 drops, listed in benches/real-tasks/draws.json, are further `--drop NAME=why`;
none so far). Re-run, it writes the same files byte for byte.

Draw 1 (`"draw": 1`) is the bugs named on the command line; its held-out third was drawn per
project with the seed "kotef-real-tasks-1" before any result was seen, and was then read while
tuning (in session 3), so those tasks are tuning tasks now (`"held_out": false`,
`"held_out_in_draw": 1`, `"read_while_tuning"`). Draw 2 (`"draw": 2`, `--draw2 K`) takes K more
bugs per project, all held out: the project's BugsInPy bugs not in draw 1 whose fix changes one
source `.py` file (as draw 1's all do), in the order `random.Random("kotef-real-tasks-2-<project>")`
shuffles them to, fixed before any result is seen; a bug that fails `real-bench.py
--check-tasks` is dropped (`--drop NAME=why`) and the next in the order takes its place.
benches/real-tasks/draws.json records both draws: seeds, draw 2's order, the tasks, the drops
and why. `scripts/real-bench.py --record-known-failing` then records, per task, the tests of the
test file that fail even with the real fix in the built environment (they are left out of the
judge's whole-file run).
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
SEED2 = "kotef-real-tasks-2"
DRAW1_READ = "session 3"  # when draw 1's held-out third was read while tuning

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


RULE2 = ("bugs not in draw 1 whose fix changes exactly one source .py file (other files may "
         "change too) and deletes none, tested by BugsInPy with unittest or pytest")


def eligible(bugsinpy, project, bug, mirror):
    """Whether a bug may be drawn in draw 2 (`RULE2`, draw 1's bugs are all of this kind),
    decided from BugsInPy's metadata and the project's commits alone."""
    kv, run_test, _ = bug_files(bugsinpy, project, bug)
    r = subprocess.run(["git", "--git-dir", str(mirror), "diff", "--name-status", "--no-renames",
                        kv["buggy_commit_id"], kv["fixed_commit_id"]], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return False
    source = [line.split("\t", 1) for line in r.stdout.splitlines()]
    source = [(s, p) for s, p in source if not is_test_path(p)]
    if any(s == "D" for s, _ in source) or len([p for _, p in source if p.endswith(".py")]) != 1:
        return False
    lines = [w.split() for w in run_test.splitlines() if w.strip() and not w.startswith("#")]
    return all(w[:3] == ["python", "-m", "unittest"] or w[0] == "pytest" for w in lines)


def second_draw_order(bugsinpy, project, mirror, taken):
    """Draw 2's order for one project: its eligible BugsInPy bugs not in draw 1 (`taken`,
    draw 1's drops included), shuffled by `random.Random("kotef-real-tasks-2-<project>")`.
    The draw takes them in this order, skipping only the ones `--drop` names."""
    listing = git(bugsinpy, "ls-tree", "--name-only", f"HEAD:projects/{project}/bugs/")
    bugs = sorted(int(b) for b in listing.split() if b.isdigit() and int(b) not in taken)
    order = [b for b in bugs if eligible(bugsinpy, project, b, mirror)]
    random.Random(f"{SEED2}-{project}").shuffle(order)
    return order


def set_fields(name, **fields):
    p = OUT / name / "task.json"
    t = json.loads(p.read_text())
    t.update(fields)
    p.write_text(json.dumps(t, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bugsinpy", required=True, type=Path, help="bare clone of BugsInPy")
    ap.add_argument("--mirror", action="append", default=[], help="PROJECT=bare clone")
    ap.add_argument("--drop", nargs="*", default=[],
                    help="tasks (PROJECT-BUG or PROJECT-BUG=why) that failed --check-tasks: in "
                         "draw 1 drawn for the held-out third like the rest (so the draw does not "
                         "move), then left out; in draw 2 skipped for the next in the order")
    ap.add_argument("--draw2", type=int, default=0, metavar="K",
                    help="draw 2: K more bugs per project, in a seeded order, all held out")
    ap.add_argument("tasks", nargs="+", help="PROJECT:BUG,BUG,... (draw 1, the whole of it)")
    args = ap.parse_args()
    mirrors = dict(m.split("=", 1) for m in args.mirror)
    drops = dict((d.split("=", 1) + [""])[:2] for d in args.drop)
    OUT.mkdir(parents=True, exist_ok=True)
    by_project, second, orders, dropped = {}, {}, {}, []
    for spec in args.tasks:
        project, bugs = spec.split(":")
        if project not in PROJECTS:
            sys.exit(f"import-bugsinpy: {project} is not a known project")
        mirror = Path(mirrors[project])
        bugs = [int(b) for b in bugs.split(",")]
        with tempfile.TemporaryDirectory(prefix="bugsinpy-") as tmp:
            scratch = Path(tmp) / "scratch.git"
            subprocess.run(["git", "init", "-q", "--bare", str(scratch)], check=True)
            (scratch / "objects" / "info" / "alternates").write_text(
                str((mirror / "objects").resolve()) + "\n")
            for bug in bugs:
                task, why = import_task(args, project, bug, mirror, scratch)
                if task is None:
                    dropped.append(why)
                    continue
                by_project.setdefault(project, []).append(f"{project}-{bug}")
            if args.draw2:
                order = second_draw_order(args.bugsinpy, project, mirror, set(bugs))
                orders[project] = [f"{project}-{b}" for b in order]
                for bug in order:
                    if len(second.get(project, [])) == args.draw2:
                        break
                    if f"{project}-{bug}" in drops:
                        continue
                    task, why = import_task(args, project, bug, mirror, scratch)
                    if task is None:
                        sys.exit(f"import-bugsinpy: {why} (draw 2 takes only eligible bugs)")
                    second.setdefault(project, []).append(f"{project}-{bug}")
            bundle = OUT / f"{project}.bundle"
            refs = [f"refs/tasks/{n}" for n in by_project.get(project, []) + second.get(project, [])
                    if n not in drops]
            # One pack thread: the same bundle, byte for byte, each time.
            subprocess.run(["git", "-c", "pack.threads=1", "--git-dir", str(scratch), "bundle",
                            "create", "-q", str(bundle), *refs], check=True)
    held = draw_held_out(by_project)
    first = [n for names in by_project.values() for n in names]
    for n in drops:
        shutil.rmtree(OUT / n, ignore_errors=True)
        dropped.append(f"{n}: --drop")
    for n in [n for n in first if n not in drops]:
        fields = {"draw": 1, "held_out": False}
        if n in held:  # held out in draw 1, then read while tuning: no longer clean
            fields.update(held_out_in_draw=1, read_while_tuning=DRAW1_READ)
        set_fields(n, **fields)
    for n in [n for names in second.values() for n in names]:
        set_fields(n, draw=2, held_out=True)
    record = {"dataset": "BugsInPy (github.com/soarsmu/BugsInPy)", "draws": [
        {"draw": 1, "seed": SEED, "tasks": sorted(n for n in first if n not in drops),
         "held_out": sorted(held - set(drops)),
         "dropped": {n: drops[n] for n in first if n in drops},
         "note": f"the held-out third was read while tuning in {DRAW1_READ}: now tuning tasks"},
        {"draw": 2, "seed": SEED2, "per_project": args.draw2, "rule": RULE2,
         "order": orders, "tasks": sorted(n for v in second.values() for n in v),
         "dropped": {n: drops[n] for v in orders.values() for n in v if n in drops},
         "note": "all held out; the order was fixed before any result was seen"}]}
    (OUT / "draws.json").write_text(json.dumps(record, indent=1) + "\n")
    total = len(first) - len([n for n in first if n in drops]) + len(record["draws"][1]["tasks"])
    print(f"imported {total} tasks ({len(record['draws'][1]['tasks'])} in draw 2, all held "
          f"out; draw 1's held-out third now tuning); dropped: {dropped or 'none'}")


if __name__ == "__main__":
    main()
