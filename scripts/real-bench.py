#!/usr/bin/env python3
"""The real-project task set (benches/real-tasks/: bugs of real Python projects from BugsInPy,
imported by scripts/import-bugsinpy.py): builds each task's environment once, checks the set
without a model, and runs kotef and mini-swe-agent on it side by side (the runner, tables and
medians are scripts/agent-bench.py's; `scripts/agent-bench.py --tasks real ...` comes here).

    scripts/real-bench.py --check-tasks                   # every task: env, fails, fixed, cheat
    scripts/real-bench.py --check-tasks --sample 3        # the lightest three (CI)
    scripts/real-bench.py --build-envs                    # build (or reuse) every environment
    scripts/real-bench.py --base-url URL --runs 2 --mini-swe-agent [--held-out]
    scripts/real-bench.py --openings [--base-url URL]      # no model: each first repair prompt
                                                          # (held-out tasks only if named)

A task's environment lives in ~/.cache/kotef/bench/real/<task>/ (KOTEF_BENCH_CACHE moves it):
`tree/` (the project at the buggy commit with the fixed commit's test files, from the
project's bundle), `venv/` (pyenv's Python of the task's version, the pinned requirements and
pytest from PyPI) and `env.json` (what was built, how long it took, whether it worked). The
agent's repository is a fresh git repository of `tree/` with a copy of `venv/` at `.venv`
(listed in `.git/info/exclude`, so it is neither shown nor committed): the sandbox sees the
work tree and ~/.pyenv but not ~/.cache, so the environment has to be inside the tree, where
a project's own `.venv` would be. The test command is `.venv/bin/python -m unittest|pytest
<the failing tests>`, the project's runner as BugsInPy runs it.

"Solved" is judged after the agent stops: the protected test files, and every file of the
tests' own code the agent changed (a helper, a conftest.py), are restored from `tree/`, then the failing tests must pass and so must the rest of their test files (with
pytest, leaving out `known_failing`: tests that fail even with the real fix in this
environment, recorded by --record-known-failing). A patch that passes with a value copied
from the tests (a string or number on its added lines that the tests hold, the real fix does
not, and the project's other code nowhere does: `return '573 Unknown Status'`) fits the test
and is not counted as solved; the row says how many such values it took.

Per run, from kotef's records (.sdd/runs/<id>.json and .transcript.jsonl), the bench prints
what issue 30 counts as lost to the harness: refused commands (and of them the project's own),
missing environment variables, setup failures, transcripts in prompts, calls cut by a time
limit, repair prompts whose files leave out every repository file of the traceback, and line
attempts a later repair step offered again (the same reply begun at the same statement as in
an earlier step: at temperature 0 the same lines again).
"""
import argparse
import functools
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "benches" / "real-tasks"
CACHE = Path(os.environ.get("KOTEF_BENCH_CACHE", Path.home() / ".cache" / "kotef" / "bench"))
REAL = CACHE / "real"
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
PYTEST = {"3.6": "pytest==7.0.1", "3.7": "pytest==7.4.4"}
PYTEST_DEFAULT = "pytest==8.3.5"
TEST_TIMEOUT_S = 600
PIP_TIMEOUT_S = 1200


def _agent_bench():
    spec = importlib.util.spec_from_file_location("agent_bench", ROOT / "scripts" / "agent-bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ab = _agent_bench()


def die(msg):
    print(f"real-bench: {msg}", file=sys.stderr)
    sys.exit(1)


def load_tasks(only=(), held_out=False):
    if not TASKS.is_dir():
        die(f"no task set at {TASKS}")
    tasks = []
    for d in sorted(TASKS.iterdir()):
        if not (d / "task.json").is_file() or (only and d.name not in only):
            continue
        t = json.loads((d / "task.json").read_text())
        for key in ("goal", "test_command", "bundle", "commit", "python", "protected"):
            if key not in t:
                die(f"{d / 'task.json'} lacks {key!r}")
        t.update(name=d.name, dir=d)
        tasks.append(t)
    if only:
        missing = set(only) - {t["name"] for t in tasks}
        if missing:
            die(f"unknown task(s): {', '.join(sorted(missing))}")
    if held_out:
        tasks = [t for t in tasks if t.get("held_out")]
    return tasks


def sample(tasks, n):
    """The `n` lightest tuning tasks (fewest requirements, then the smallest bundle), one per
    project first: what CI can build in a few minutes. Held-out tasks are never sampled, so
    CI's logs show nothing of them."""
    weight = lambda t: (len(t.get("requirements") or []), (TASKS / t["bundle"]).stat().st_size,
                        t["name"])
    tasks = [t for t in tasks if not t.get("held_out")]
    usable = [t for t in tasks if python_for(t["python"])]
    if len(usable) < n:
        missing = sorted({t["python"] for t in tasks} - {t["python"] for t in usable})
        # A machine without the tasks' old Pythons checks what it can and says what it could
        # not: the whole set is checked where pyenv has them (`--check-tasks` without --sample).
        print(f"real-bench: --sample {n}: only {len(usable)} tasks have their Python here; "
              f"Python {', '.join(missing)} is not installed (pyenv, PYENV_ROOT={PYENV.parent})",
              file=sys.stderr)
    firsts, rest, seen = [], [], set()
    for t in sorted(usable, key=weight):
        project = t["source"]["project"]
        (rest if project in seen else firsts).append(t)
        seen.add(project)
    return sorted(firsts, key=weight)[:n] + rest[: max(0, n - len(firsts))]


def run(cmd, cwd=None, timeout=TEST_TIMEOUT_S, env=None):
    rc, out, err, _ = ab.run_bounded(cmd, cwd, timeout, env)
    return rc, (out or "") + (err or "")


def project_git(bundle):
    """A bare repository holding the bundle's task commits (refreshed when the bundle changes)."""
    data = bundle.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    gitdir = REAL / "_git" / f"{bundle.stem}-{digest}.git"
    if not (gitdir / "kotef-ok").exists():
        shutil.rmtree(gitdir, ignore_errors=True)
        gitdir.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", str(gitdir)], check=True)
        subprocess.run(["git", "--git-dir", str(gitdir), "fetch", "-q", str(bundle),
                        "refs/tasks/*:refs/tasks/*"], check=True)
        (gitdir / "kotef-ok").write_text("")
    return gitdir


def python_for(version):
    """pyenv's newest patch release of `version` (e.g. 3.7 -> ~/.pyenv/versions/3.7.16), else
    `python3.7` on PATH."""
    found = sorted((p for p in PYENV.glob(f"{version}.*") if (p / "bin" / "python").exists()),
                   key=lambda p: [int(x) for x in p.name.split(".") if x.isdigit()])
    if found:
        return found[-1] / "bin" / "python"
    on_path = shutil.which(f"python{version}")
    return Path(on_path) if on_path else None


def env_key(t):
    return hashlib.sha256(json.dumps([t["commit"], t["python"], t.get("requirements") or [],
                                      PYTEST.get(t["python"], PYTEST_DEFAULT)]).encode()
                          ).hexdigest()[:16]


def exact_version(py):
    rc, out = run([str(py), "-c", "import platform; print(platform.python_version())"], timeout=60)
    return out.strip() if rc == 0 else "?"


def venv_key(t):
    return hashlib.sha256(json.dumps([t["python"], t.get("requirements") or [],
                                      PYTEST.get(t["python"], PYTEST_DEFAULT)]).encode()
                          ).hexdigest()[:16]


def build_venv(t, log):
    """The venv for the task's Python and requirements, shared by the tasks that have the same
    (REAL/_venv/<key>/); returns (path, exact Python). Raises RuntimeError."""
    venv = REAL / "_venv" / venv_key(t)
    py = python_for(t["python"])
    if py is None:
        raise RuntimeError(f"no Python {t['python']} under {PYENV}")
    if (venv / "kotef-ok").exists():
        return venv, exact_version(py)
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    rc, out = run([str(py), "-m", "venv", str(venv)], timeout=300)
    if rc != 0:
        raise RuntimeError(f"venv: {out[-400:]}")
    pins = [PYTEST.get(t["python"], PYTEST_DEFAULT)] + list(t.get("requirements") or [])
    log(f"real-bench: {t['name']}: pip install {' '.join(pins)}")
    rc, out = run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                   "--disable-pip-version-check", "--no-input", *pins], timeout=PIP_TIMEOUT_S)
    if rc != 0:
        raise RuntimeError(f"pip install: {out.strip()[-600:]}")
    (venv / "kotef-ok").write_text(" ".join(pins) + "\n")
    return venv, exact_version(py)


def build_env(t, log=print):
    """Builds (or reuses) the task's tree and venv. Returns env.json's content."""
    home = REAL / t["name"]
    stamp = home / "env.json"
    key = env_key(t)
    try:
        rec = json.loads(stamp.read_text())
    except (OSError, ValueError):  # not built yet, or cut short (a full disk)
        rec = None
    if rec:
        venv = Path(rec["venv"]) / "kotef-ok" if rec.get("venv") else home / "venv"
        if rec.get("key") == key and rec.get("ok") and venv.exists():
            return rec
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    start = time.monotonic()
    rec = {"key": key, "ok": False, "python": t["python"],
           "requirements": t.get("requirements") or []}
    try:
        gitdir = project_git(TASKS / t["bundle"])
        tree = home / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "--git-dir", str(gitdir), "archive", t["commit"]],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        venv, exact = build_venv(t, log)
        rec["venv"] = str(venv)
        rec["python_exact"] = exact
        rec["ok"] = True
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        rec["error"] = str(e)
    rec["build_s"] = round(time.monotonic() - start, 1)
    tmp = stamp.with_suffix(".tmp")
    tmp.write_text(json.dumps(rec, indent=1) + "\n")
    tmp.replace(stamp)  # whole or absent, never cut short
    return rec


def fresh_repo(t, parent, venv=True):
    """The agent's repository: the task's tree as one commit, its venv copied to `.venv`."""
    home = REAL / t["name"]
    repo = Path(parent) / t["name"]
    shutil.copytree(home / "tree", repo, symlinks=True)
    if venv:
        rec = json.loads((home / "env.json").read_text())
        shutil.copytree(rec.get("venv") or home / "venv", repo / ".venv", symlinks=True,
                        ignore=shutil.ignore_patterns("kotef-ok"))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost",
           "-c", "core.autocrlf=false"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    with open(repo / ".git" / "info" / "exclude", "a") as f:
        f.write("\n.venv/\n")
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", "task"]):
        subprocess.run(git + args, cwd=repo, check=True)
    return repo


def judge_command(t, xml):
    cmd = [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
           "addopts=", f"--junitxml={xml}", *t["test_files"]]
    for n in t.get("known_failing") or []:
        cmd += ["--deselect", n]
    return cmd


def restore_protected(t, repo):
    tree = REAL / t["name"] / "tree"
    for rel in t["protected"]:
        src = tree / rel
        if src.is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, repo / rel)
    restore_tests_code(tree, repo)


def tests_code(rel):
    """Whether a path is the tests' own code or harness (tests/, conftest.py, test_x.py, any
    file whose name holds `test`), as kotef's repair loop reads it."""
    return bool(TEST_PATH.search(rel)) or "test" in rel.rsplit("/", 1)[-1].lower()


def restore_tests_code(tree, repo):
    """Every file of the tests' own code an agent changed, added or removed, put back as the
    task's tree has it: a helper made to assert nothing (or a new conftest.py that skips)
    passes any test and fixes nothing. Links are replaced, never followed."""
    skip = {".git", ".venv", ".sdd"}

    def files(root):
        out = set()
        for dirpath, dirnames, names in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = [d for d in dirnames if not (rel_dir == "." and d in skip)]
            for n in names:
                rel = os.path.normpath(os.path.join(rel_dir, n))
                if tests_code(rel.replace(os.sep, "/")):
                    out.add(rel)
        return out
    restored = []
    for rel in sorted(files(tree) | files(repo)):
        src, dst = tree / rel, repo / rel
        same = src.is_file() and not dst.is_symlink() and dst.is_file() \
            and src.read_bytes() == dst.read_bytes()
        if same:
            continue
        if dst.is_symlink() or dst.is_file():
            dst.unlink()
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dst)
        restored.append(rel)
    return restored


def judge(t, repo, detail=None):
    """The protected tests restored, the failing tests and the rest of their files pass."""
    restore_protected(t, repo)
    rc, out = run(["sh", "-c", t["test_command"]], cwd=repo)
    if detail is not None:
        detail["named"] = rc == 0
        detail["named_out"] = out[-1500:]
    if rc != 0:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "judge.xml"
        rc, out = run(judge_command(t, xml), cwd=repo)
        results = junit_results(xml, t["test_files"]) if xml.exists() else {}
    # Each named test must have run and passed: a skip (a conftest.py that skips
    # everything, say) exits 0 but fixes nothing.
    unproven = not_passed(t.get("failing_tests") or [], results)
    if detail is not None:
        detail["file"] = rc == 0 and not unproven
        detail["file_out"] = out[-1500:] + (f"\nnot passed: {unproven}" if unproven else "")
    return rc == 0 and not unproven


STRING = re.compile(r"""(['"])((?:\\.|(?!\1).)*?)\1""")
NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:\.\d+)?\b")
TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_tests?\.py$|(^|/)conftest\.py$")


def added_values(diff):
    """The string literals (3+ characters) and numbers (2+ digits) on a diff's added lines."""
    out = []
    for line in diff.splitlines():
        if not line.startswith("+") or line.startswith("+++"):
            continue
        code = line[1:].split(" #", 1)[0]
        for m in STRING.finditer(code):
            if len(m.group(2)) >= 3:
                out.append(m.group(2))
        out += NUMBER.findall(STRING.sub("", code))
    return list(dict.fromkeys(out))


def fitted_values(diff, tests, fix, in_source):
    """The values an agent's change takes from the tests: on its added lines, found in the
    protected tests, in no file of the real fix and nowhere in the project's other code
    (`in_source(value)`). A patch that passes by returning the value a test expects fits the
    test; it fixes nothing, and the judge does not count it."""
    return [v for v in added_values(diff)
            if v in tests and v not in fix and not in_source(v)]


def test_fitted(t, repo):
    """fitted_values for an agent's repository after the judge restored the tests."""
    excluded = [":!.sdd", ":!.venv"] + [f":!{p}" for p in t.get("protected", [])]
    diff = subprocess.run(["git", "diff", "HEAD", "--", ".", *excluded], cwd=repo,
                          capture_output=True, text=True).stdout
    tests = "".join((repo / p).read_text(errors="replace") for p in t.get("protected", [])
                    if (repo / p).is_file())
    sol = TASKS / t["name"] / "solution"
    fix = "".join(p.read_text(errors="replace") for p in sol.rglob("*") if p.is_file())

    def in_source(value):
        found = subprocess.run(["git", "grep", "-l", "-F", "-e", value, "HEAD", "--", "*.py"],
                               cwd=repo, capture_output=True, text=True).stdout
        paths = [line.split(":", 1)[1] for line in found.splitlines() if ":" in line]
        return any(not TEST_PATH.search(p) for p in paths)
    return fitted_values(diff, tests, fix, in_source)


def apply_dir(src, repo):
    shutil.copytree(src, repo, dirs_exist_ok=True, copy_function=shutil.copy)


def check_task(t, tmp):
    """(ok, line): the env builds, the tests fail as given, pass with the real fix, and each
    cheat (tests edited) passes the named command yet is rejected by the judge."""
    rec = build_env(t, log=lambda m: print(m, file=sys.stderr))
    if not rec.get("ok"):
        return False, f"environment: {rec.get('error', '?')[-300:]}"
    work = Path(tempfile.mkdtemp(dir=tmp))
    repo = fresh_repo(t, work / "given")
    rc, out = run(["sh", "-c", t["test_command"]], cwd=repo)
    fails = rc != 0
    repo = fresh_repo(t, work / "fixed")
    apply_dir(t["dir"] / "solution", repo)
    d = {}
    fixed = judge(t, repo, d)
    gamed, fooled = [], []
    cheats = t["dir"] / "cheats"
    for cheat in sorted(cheats.iterdir()) if cheats.is_dir() else []:
        repo = fresh_repo(t, work / "cheat" / cheat.name)
        apply_dir(cheat, repo)
        rc, _ = run(["sh", "-c", t["test_command"]], cwd=repo)
        if rc == 0:
            fooled.append(cheat.name)  # the cheat "works" on the unguarded command
        if judge(t, repo):
            gamed.append(cheat.name)
    shutil.rmtree(work, ignore_errors=True)
    has_cheat = cheats.is_dir() and any(cheats.iterdir())
    ok = fails and fixed and not gamed and has_cheat and len(fooled) == len(list(cheats.iterdir()))
    why = ""
    if not fixed:
        why = " | " + (d.get("file_out") or d.get("named_out") or "").strip().splitlines()[-1:][0] \
            if (d.get("file_out") or d.get("named_out") or "").strip() else ""
    return ok, (f"fails as given: {fails}, passes when fixed: {fixed} (named: "
                f"{d.get('named')}, whole file: {d.get('file')}), cheat rejected: "
                f"{has_cheat and not gamed} (passes the bare command: {bool(fooled)}), "
                f"env {rec.get('build_s')} s{why}")


def check_tasks(tasks):
    bad = 0
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kotef-real-") as tmp:
        for t in tasks:
            t0 = time.monotonic()
            ok, line = check_task(t, tmp)
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {t['name']}: {line}, check "
                  f"{time.monotonic() - t0:.0f} s", flush=True)
    print(f"{len(tasks) - bad} passed, {bad} failed ({time.monotonic() - start:.0f} s)")
    return bad == 0


def record_known_failing(tasks):
    """Per task, the tests of its test files that fail even with the real fix (written into
    task.json's `known_failing`; the failing tests themselves must never be among them)."""
    with tempfile.TemporaryDirectory(prefix="kotef-real-") as tmp:
        for t in tasks:
            rec = build_env(t, log=lambda m: print(m, file=sys.stderr))
            if not rec.get("ok"):
                print(f"{t['name']}: environment failed: {rec.get('error', '')[-300:]}")
                continue
            repo = fresh_repo(t, Path(tmp) / t["name"])
            apply_dir(t["dir"] / "solution", repo)
            xml = Path(tmp) / f"{t['name']}.xml"
            cmd = [".venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                   "addopts=", f"--junitxml={xml}", *t["test_files"]]
            run(cmd, cwd=repo)
            failing = junit_failures(xml, t["test_files"]) if xml.exists() else []
            named = set(t.get("failing_tests") or [])
            clash = [n for n in failing if n in named or any(n.startswith(x + "::") for x in named)]
            p = t["dir"] / "task.json"
            meta = json.loads(p.read_text())
            meta["known_failing"] = sorted(n for n in failing if n not in clash)
            p.write_text(json.dumps(meta, indent=1) + "\n")
            print(f"{t['name']}: {len(meta['known_failing'])} known failing"
                  + (f"; the named tests fail with the fix: {clash}" if clash else ""))


def not_passed(named, results):
    """The named tests (node ids, or classes of them) that did not run and pass."""
    out = []
    for n in named:
        hits = [v for k, v in results.items() if k == n or k.startswith(n + "::")]
        if not hits or any(v != "passed" for v in hits):
            out.append(n)
    return out


def junit_results(xml, test_files):
    """pytest's JUnit XML as {node id: passed | failed | skipped}."""
    import xml.etree.ElementTree as ET
    out = {}
    for case in ET.parse(xml).iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        status = ("failed" if case.find("failure") is not None or case.find("error") is not None
                  else "skipped" if case.find("skipped") is not None else "passed")
        parts = cls.split(".")
        for n in range(len(parts), 0, -1):
            path = "/".join(parts[:n]) + ".py"
            if path in test_files:
                out["::".join([path] + parts[n:] + [name])] = status
                break
    return out


def junit_failures(xml, test_files):
    return sorted(k for k, v in junit_results(xml, test_files).items() if v == "failed")


# ---- what the harness lost, from kotef's run records ----

FRAME = re.compile(r'File "([^"]+)", line \d+|^([\w./\-]+\.py):\d+: ', re.M)
MISSING_VAR = re.compile(r"KeyError: '([A-Z][A-Z0-9_]{2,})'|environment variable `?([A-Z][A-Z0-9_]{2,})`? is not set")


def repo_frames(text, repo):
    """The repository's own files a traceback names (not .venv, not site-packages)."""
    out = []
    root = str(repo.resolve()) + "/"
    for m in FRAME.finditer(text):
        p = m.group(1) or m.group(2)
        if p.startswith(root):
            p = p[len(root):]
        if p.startswith("/") or p.startswith(".venv/") or "site-packages" in p:
            continue
        p = p.lstrip("./")
        if (repo / p).is_file() and p not in out:
            out.append(p)
    return out


def shows_file(files_section, path):
    """Whether a repair prompt's "# Files" section shows `path`: whole (its path on a line of
    its own, or with a role in brackets) or in part (its outline: "<path> has N lines", an
    excerpt: "<path> lines A-B")."""
    return re.search(r"(^|\n)" + re.escape(path) + r"(\n| \(| has \d+ lines| lines \d+)",
                     files_section) is not None


NOT_STARTED = re.compile(r"not started: its prompt of about \d+ tokens \((\d+) not in the "
                         r"server's cache\).*?a reply of \d+ tokens about (\d+) s.*?(\d+) s are left",
                         re.S)
# A call that read at least this many uncached tokens measures the server's prompt speed.
LONG_READ = 256


def could_have_finished(report):
    """Whether the call a run did not start (the `budget` rule: "cannot finish in the time
    left, so it was not started") would have finished at the prompt speed the server showed
    on the run's long reads (tokens over milliseconds of the calls that read at least
    LONG_READ uncached tokens): a call lost to a wrong measurement, not to the budget. The
    reason's seconds are rounded, so the call counts only when it fits with one to spare."""
    m = NOT_STARTED.search(report.get("stop_reason") or "")
    if not m:
        return False
    long = [t for t in (c.get("timings") or {} for c in report.get("calls") or [])
            if t.get("prompt_uncached", 0) >= LONG_READ and t.get("prompt_ms", 0) > 0]
    if not long:
        return False
    rate = sum(t["prompt_uncached"] for t in long) * 1000 / sum(t["prompt_ms"] for t in long)
    uncached, reply_s, left = map(int, m.groups())
    return uncached / rate + reply_s + 1 <= left


def harness_losses(repo, test_command, stderr="", protected=()):
    """The issue-30 counts of one kotef run, from its records under `repo/.sdd/runs`. The
    task's protected test files are not counted as missing frames: the repair opening leaves
    tests out on purpose (a small model shown a test copies it back as its fix). A repair
    prompt is judged against the failure it shows: a failed attempt is undone before the next
    prompt, so the last failing run (that attempt's) is not the failure of the code the
    prompt asks to fix."""
    out = {"refused": 0, "refused_project": 0, "missing_vars": 0, "setup_failed": 0,
           "transcript_in_prompt": 0, "calls_cut": 0, "repair_prompts": 0,
           "repair_without_frames": 0, "not_started_fits": 0, "tests_timed_out": 0,
           "offers_repeated": 0, "spectrum_timed_out": 0, "spectrum_cut": 0}
    offered_in = {}  # a line attempt's begun reply -> the step it was first offered in
    if re.search(r"\bsetup\b.*\b(failed|exited)", stderr or "", re.I):
        out["setup_failed"] = 1
    runs = sorted((repo / ".sdd" / "runs").glob("*.transcript.jsonl"))
    if not runs:
        return out
    try:
        report = json.loads(runs[-1].with_name(
            runs[-1].name.replace(".transcript.jsonl", ".json")).read_text())
        out["not_started_fits"] = int(could_have_finished(report))
    except (OSError, ValueError):
        pass
    project_exe = test_command.split()[0]
    for line in runs[-1].read_text(errors="replace").splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        kind = e.get("type")
        if kind == "tool_call":
            text = str(e.get("output", ""))
            if e.get("name") == "run_command":
                if text.startswith("command denied"):
                    out["refused"] += 1
                    cmd = str((e.get("arguments") or {}).get("command", ""))
                    if cmd.split()[:1] == [project_exe] or cmd.startswith(".venv/") \
                            or re.match(r"(python3?|pytest)\b", cmd):
                        out["refused_project"] += 1
            if e.get("name") == "spectrum":
                out["spectrum_timed_out"] += text.startswith("no spectrum: the traced run took over")
                out["spectrum_cut"] += "(ended once the failing tests had run" in text
            out["missing_vars"] += len(MISSING_VAR.findall(text))
        elif kind == "verification":
            text = str(e.get("output", ""))
            out["missing_vars"] += len(MISSING_VAR.findall(text))
            out["tests_timed_out"] += bool(e.get("timed_out"))
        elif kind == "model_error":
            if "timed out" in str(e.get("error", "")):
                out["calls_cut"] += 1
        elif kind == "model_request":
            text = "\n".join(str(m.get("content") or "") for m in e.get("messages") or [])
            if ".sdd/runs/" in text or ".transcript.jsonl" in text:
                out["transcript_in_prompt"] += 1
            last = (e.get("messages") or [{}])[-1]
            if e.get("node") == "coder" and last.get("role") == "assistant":
                first = offered_in.setdefault(str(last.get("content")), e.get("step"))
                out["offers_repeated"] += first != e.get("step")
            if e.get("node") == "coder" and "\n# Files\n" in text:
                out["repair_prompts"] += 1
                shown, _, failure = text.split("\n# Files\n", 1)[1].partition(
                    "\n# How the tests fail now")
                frames = [f for f in repo_frames(failure, repo) if f not in protected]
                if frames and not any(shows_file(shown, f) for f in frames):
                    out["repair_without_frames"] += 1
    return out


LOSS_KEYS = ["refused", "refused_project", "missing_vars", "setup_failed",
             "transcript_in_prompt", "calls_cut", "repair_prompts", "repair_without_frames",
             "not_started_fits", "tests_timed_out", "offers_repeated", "spectrum_timed_out",
             "spectrum_cut"]
# Counted beside the losses, not losses themselves: every repair prompt, test runs cut by
# their time limit (a change that loops forever is the model's; a start that times out is
# the environment's, and the task's row says which), and traced runs the tracer ended once
# the failing tests had run (a spectrum from the tests before; one that timed out gave none).
NOT_LOST = ("repair_prompts", "tests_timed_out", "spectrum_cut")


def print_losses(rows):
    print("\n## lost to the harness (kotef's records, per run)\n")
    print("| run | " + " | ".join(k.replace("_", " ") for k in LOSS_KEYS) + " |")
    print("|---|" + "---|" * len(LOSS_KEYS))
    for run_no in sorted({r["run"] for r in rows}):
        rs = [r for r in rows if r["run"] == run_no]
        sums = [sum((r.get("losses") or {}).get(k, 0) for r in rs) for k in LOSS_KEYS]
        print(f"| {run_no} | " + " | ".join(str(s) for s in sums) + " |")
    lost = [r for r in rows if any((r.get("losses") or {}).get(k, 0) for k in LOSS_KEYS
                                   if k not in NOT_LOST)]
    for r in lost:
        got = {k: v for k, v in r["losses"].items() if v and k not in NOT_LOST}
        print(f"- run {r['run']} {r['task']}: {got}")


@functools.cache
def _openings():
    """scripts/real_openings.py, loaded once: the `--openings` audit and its oracle."""
    spec = importlib.util.spec_from_file_location("real_openings",
                                                  ROOT / "scripts" / "real_openings.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fix_reach(t, repo):
    """How near kotef's repair loop came to the real fix in a measured run (the `--openings`
    audit's oracle, `real_openings.py`, on the run's own transcript): the files the fix
    changes, whether a repair prompt showed one of them, and at which distinct statement
    offered to a line attempt (1 the first) one the fix changes or adds lines next to came.
    Counts only: a held-out task's contents are never printed."""
    ro = _openings()
    sol = t["dir"] / "solution"
    protected = set(t.get("protected") or [])
    root = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=repo,
                          capture_output=True, text=True).stdout.split()[:1]
    lines, files = set(), []
    for f in sorted(p for p in sol.rglob("*") if p.is_file()):
        rel = f.relative_to(sol).as_posix()
        if rel in protected or not root:
            continue
        # The task's commit, not the work tree: the run leaves its best attempt there.
        buggy = subprocess.run(["git", "show", f"{root[0]}:{rel}"], cwd=repo,
                               capture_output=True, text=True, errors="replace").stdout
        files.append(rel)
        lines |= set(ro.changed_lines(buggy, f.read_text(errors="replace")))
    shown = False
    for msgs in ro.coder_requests(repo):
        text = "\n".join(str(m.get("content") or "") for m in msgs if m.get("role") == "user")
        if "\n# Files\n" in text:
            section = text.split("\n# Files\n", 1)[1].partition("\n# How the tests fail now")[0]
            shown = shown or any(shows_file(section, f) for f in files)
    offered = ro.offered_statements(repo)
    at = next((i + 1 for i, stmt in enumerate(offered)
               if any(line.strip() in lines for line in stmt.splitlines() if line.strip())), None)
    return {"fix_files": len(files), "shown": shown, "offered_at": at, "offered": len(offered)}


def print_reach(rows):
    """Per run, over kotef's rows: in how many tasks a repair prompt showed a file of the real
    fix, in how many a line attempt was begun at a statement it touches (and at which of the
    distinct statements offered, median), and how many of those were solved."""
    print("\n## where the fix is (kotef, per run; the real patch against the repair loop)\n")
    print("| run | tasks | fix file shown | fix statement offered | at statement (median) "
          "| solved of those offered |")
    print("|---|---|---|---|---|---|")
    for run_no in sorted({r["run"] for r in rows}):
        rs = [r for r in rows if r["run"] == run_no and r.get("reach")]
        offered = [r for r in rs if r["reach"]["offered_at"] is not None]
        at = ab.median([r["reach"]["offered_at"] for r in offered]) if offered else "–"
        print(f"| {run_no} | {len(rs)} | {sum(r['reach']['shown'] for r in rs)} | "
              f"{len(offered)} | {at} | {sum(r['solved'] for r in offered)} |")


def group(t):
    return "real, held out" if t.get("held_out") else "real, tuning part"


def run_agents(tasks, args):
    agents = [] if args.no_kotef else [("kotef", ab.run_kotef)]
    if args.mini_swe_agent:
        py = ab.mini_python()
        agents.append(("mini-swe-agent", lambda t, r, a: ab.run_mini(t, r, a, py)))
    if not agents:
        die("nothing to run")
    for t in tasks:
        rec = build_env(t, log=lambda m: print(m, file=sys.stderr))
        if not rec.get("ok"):
            die(f"{t['name']}: the environment could not be built: {rec.get('error')}")
    results = {name: [] for name, _ in agents}
    parent = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kotef-real-"))
    parent.mkdir(parents=True, exist_ok=True)
    try:
        for run_no in range(1, args.runs + 1):
            for t in tasks:
                for name, runner in agents:
                    work = parent / f"run{run_no}" / name
                    work.mkdir(parents=True, exist_ok=True)
                    repo = fresh_repo(t, work)
                    row = runner(t, repo, args)
                    if name == "kotef":
                        row["losses"] = harness_losses(repo, t["test_command"],
                                                       row.get("reason") or "",
                                                       t.get("protected", []))
                        row["reach"] = fix_reach(t, repo)
                    passed = judge(t, repo)
                    fitted = test_fitted(t, repo) if passed else []
                    row.update(task=t["name"], kind="fix", group=group(t), run=run_no,
                               solved=passed and not fitted, fits_tests=len(fitted))
                    results[name].append(row)
                    print(f"real-bench: run {run_no} {name} {t['name']}: solved={row['solved']} "
                          f"ending={row['ending']} calls={ab.fmt(row['model_calls'])} "
                          + (f"(passed with {len(fitted)} values copied from the tests) "
                             if fitted else "") +
                          f"wall={row['wall_s']:.0f}s", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(parent, ignore_errors=True)
    for name, rows in results.items():
        for run_no in range(1, args.runs + 1):
            ab.print_table(f"{name}, run {run_no}" if args.runs > 1 else name,
                           [r for r in rows if r["run"] == run_no])
        if name == "kotef":
            print_losses(rows)
            print_reach(rows)
    print("\n## medians over runs\n")
    for name, rows in results.items():
        per_group = {}
        for r in rows:
            per_group.setdefault(r["group"], {}).setdefault(r["run"], 0)
            per_group[r["group"]][r["run"]] += r["solved"]
        for g, by_run in sorted(per_group.items()):
            counts = sorted(by_run.values())
            n = sum(1 for r in rows if r["group"] == g and r["run"] == 1)
            print(f"{name} {g}: solved per run {counts}, median {ab.median(counts)}/{n}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str) + "\n")


def unseen_kept(tasks, asked, quiet=False):
    """The tasks `--openings` may audit: held-out tasks only when asked for by name or by
    --held-out (their prompts are not to be read before they are measured)."""
    if asked:
        return tasks
    kept = [t for t in tasks if not t.get("held_out")]
    if len(kept) < len(tasks) and not quiet:
        print(f"real-bench: {len(tasks) - len(kept)} held-out tasks left out (--held-out or "
              "--only audits them, once they are measured)", file=sys.stderr)
    return kept


def openings(tasks, args):
    """`--openings`: scripts/real_openings.py's audit of every task's first repair prompt."""
    mod = _openings()
    if not Path(args.kotef).is_file():
        die(f"kotef binary not found at {args.kotef} (cargo build, or --kotef PATH)")
    args.kotef = str(Path(args.kotef).resolve())
    for t in tasks:
        rec = build_env(t, log=lambda m: print(m, file=sys.stderr))
        if not rec.get("ok"):
            die(f"{t['name']}: the environment could not be built: {rec.get('error')}")
    parent = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kotef-open-"))
    try:
        mod.run_audit(tasks, args, fresh_repo, ab.run_bounded, parent, judge)
    finally:
        if not args.keep:
            shutil.rmtree(parent, ignore_errors=True)


def self_test():
    """The loss counters and the attempts by kind over made-up transcripts (one of each), the
    tests' code an agent changed put back, and that neither the sample
    (CI) nor --openings picks a held-out task unasked."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        (repo / "pkg").mkdir()
        (repo / "pkg" / "mod.py").write_text("x = 1\n")
        (repo / "pkg" / "other.py").write_text("y = 2\n")
        (repo / "tests").mkdir()
        (repo / "tests" / "test_mod.py").write_text("")
        runs = repo / ".sdd" / "runs"
        runs.mkdir(parents=True)
        tb = (f'Traceback (most recent call last):\n  File "{repo}/tests/test_mod.py", line 3\n'
              f'  File "{repo}/pkg/mod.py", line 1, in f\n  File "{repo}/.venv/lib/x.py", '
              "line 2\nKeyError: 'DATABASE_URL'\n")
        undone = f'Traceback (most recent call last):\n  File "{repo}/pkg/other.py", line 1\nNameError\n'
        in_test = f'  File "{repo}/tests/test_mod.py", line 3\nAssertionError\n'
        repair = "# Goal\ng\n\n# Files\n\n{}\n```\nx = 1\n```\n\n# How the tests fail now: `t`\n```\n" + tb + "```"
        events = [
            {"type": "tool_call", "node": "coder", "name": "run_command",
             "arguments": {"command": ".venv/bin/python -m pytest -q tests"},
             "output": "command denied by the strict profile: x", "is_error": True},
            {"type": "tool_call", "node": "coder", "name": "run_command",
             "arguments": {"command": "awk 1 f"}, "output": "command denied by the strict profile",
             "is_error": True},
            {"type": "verification", "command": "t", "passed": False, "output": tb},
            {"type": "verification", "command": "t", "passed": False, "timed_out": True,
             "output": "(timed out)"},
            {"type": "model_error", "node": "coder", "error": "model call timed out after 120000 ms"},
            {"type": "tool_call", "node": "coder", "name": "spectrum",
             "output": "no spectrum: the traced run took over 18 s", "is_error": True},
            {"type": "tool_call", "node": "coder", "name": "spectrum",
             "output": "traced 1 failing and 17 passing test(s) (ended once the failing tests had "
                       "run, past 9 s); most suspect: black.py (0.58)", "is_error": False},
            {"type": "model_request", "node": "researcher",
             "messages": [{"role": "user", "content": "files: .sdd/runs/a.transcript.jsonl"}]},
            {"type": "model_request", "node": "coder",
             "messages": [{"role": "user", "content": repair.format("tests/other.py")}]},
            {"type": "model_request", "node": "coder",
             "messages": [{"role": "user", "content": repair.format("pkg/mod.py")}]},
            {"type": "model_request", "node": "coder",
             "messages": [{"role": "user", "content": repair.format(
                 "pkg/mod.py has 900 lines, too many to show whole.")}]},
            {"type": "model_request", "node": "coder",
             "messages": [{"role": "user", "content": repair.format(
                 "pkg/mod.py lines 1-1, `x` (to change it, ...)")}]},
            {"type": "verification", "command": "t", "passed": False, "output": undone},
            {"type": "model_request", "node": "coder",
             "messages": [{"role": "user", "content": repair.format("pkg/mod.py").replace(
                 tb, in_test)}]},
        ]
        # One line attempt offered twice in step 2 (hotter: not counted), again in step 5.
        line = [{"role": "system", "content": "You fix a bug."},
                {"role": "assistant", "content": "pkg/mod.py\n<<<<<<< SEARCH\nx = 1\n=======\n"}]
        events += [{"type": "model_request", "node": "coder", "step": step, "messages": line}
                   for step in (2, 2, 5)]
        (runs / "a.transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        # Refused at 30 tokens/s measured on a short read; the long reads show 80.
        refused = ("The next coder call cannot finish in the time left, so it was not started: "
                   "its prompt of about 3100 tokens (3000 not in the server's cache) needs about "
                   "100 s at the 30.0 prompt tokens/s the server was measured at, and a reply of "
                   "128 tokens about 6 s at 21.0 tokens/s; 57 s are left.")
        calls = [{"timings": {"prompt_uncached": 2000, "prompt_ms": 25000.0}},
                 {"timings": {"prompt_uncached": 40, "prompt_ms": 1333.0}}, {}]
        (runs / "a.json").write_text(json.dumps({"stop_reason": refused, "calls": calls}))
        for left in ("30 s", "44 s"):  # 37.5 s + 6 s at the real speed; rounded figures
            if could_have_finished({"stop_reason": refused.replace("57 s", left),
                                    "calls": calls}):
                die(f"self-test: a call that could not finish with {left} left counted as lost")
        got = harness_losses(repo, ".venv/bin/python -m pytest -q tests/test_mod.py",
                             "error: setup failed: exit 1", ["tests/test_mod.py"])
        want = {"refused": 2, "refused_project": 1, "missing_vars": 1, "setup_failed": 1,
                "transcript_in_prompt": 1, "calls_cut": 1, "repair_prompts": 5,
                "repair_without_frames": 1, "not_started_fits": 1, "tests_timed_out": 1,
                "offers_repeated": 1, "spectrum_timed_out": 1, "spectrum_cut": 1}
        if got != want:
            die(f"self-test: losses {got}, expected {want}")
        frames = repo_frames(tb, repo)
        if frames != ["tests/test_mod.py", "pkg/mod.py"]:
            die(f"self-test: frames {frames}")
        system = {"role": "system", "content": "You fix a bug. ..."}
        opening = {"role": "user", "content": "# Goal"}
        attempts = [
            {"type": "model_request", "node": "coder", "messages": [system, opening]},
            {"type": "model_reply", "node": "coder", "latency_ms": 90000},
            {"type": "verification", "passed": False},
            {"type": "model_request", "node": "coder",
             "messages": [system, opening, {"role": "assistant", "content": "<<<<<<< SEARCH"}]},
            {"type": "model_reply", "node": "coder", "latency_ms": 4000},
            {"type": "verification", "passed": True},
            {"type": "verification", "passed": False},
        ]
        (runs / "b.transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in attempts))
        kinds = ab.attempt_kinds(runs / "b.transcript.jsonl")
        if kinds != {"free": {"calls": 1, "s": 90.0, "tested": 1, "passed": 0},
                     "line": {"calls": 1, "s": 4.0, "tested": 1, "passed": 1}}:
            die(f"self-test: attempts by kind {kinds}")
        stones = [{"type": "tool_call", "node": "coder", "name": "stepping_stones",
                   "arguments": {"stone": s, "stones": 1, "combined_runs": n, "passed": p}}
                  for s, n, p in ((True, 2, False), (False, 1, True))]
        (runs / "c.transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in stones))
        counted = ab.stone_counts(runs / "c.transcript.jsonl")
        if counted != {"stones": 1, "combined": 3, "passed": 1}:
            die(f"self-test: stepping stones {counted}")
    with tempfile.TemporaryDirectory() as tmp:
        repo, task = Path(tmp) / "repo", Path(tmp) / "task"
        (repo / "pkg").mkdir(parents=True)
        (repo / "pkg" / "mod.py").write_text("def f():\n    x = 1\n    return x\n")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
        subprocess.run(git[:1] + ["init", "-q", str(repo)], check=True)
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", "task"], check=True)
        (task / "solution" / "pkg").mkdir(parents=True)
        (task / "solution" / "pkg" / "mod.py").write_text("def f():\n    x = 2\n    return x\n")
        system = {"role": "system", "content": "You fix a bug."}
        opening = {"role": "user", "content": "# Goal\ng\n\n# Files\n\npkg/mod.py\n```\n"
                   "def f():\n```\n\n# How the tests fail now: `t`\n"}
        begun = "pkg/mod.py\n```python\n<<<<<<< SEARCH\n{}\n=======\n"
        events = [{"type": "model_request", "node": "coder", "messages": [system, opening]}] + [
            {"type": "model_request", "node": "coder",
             "messages": [system, opening, {"role": "assistant", "content": begun.format(b)}]}
            for b in ("    return x", "    x = 1", "    x = 1")]
        runs = repo / ".sdd" / "runs"
        runs.mkdir(parents=True)
        (runs / "a.transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
        got = fix_reach({"dir": task, "protected": []}, repo)
        if got != {"fix_files": 1, "shown": True, "offered_at": 2, "offered": 2}:
            die(f"self-test: how near the repair loop came to the fix: {got}")
    tests = 'assertEqual(status_message(573), "573 Unknown Status")\n'
    fix = 'return "%s %s" % (status, RESPONSES.get(status, "Unknown Status"))\n'
    fitted = "+    if status == 573:\n+        return '573 Unknown Status'  # the test's\n"
    general = "+    return '%s %s' % (status, RESPONSES.get(status, 'Unknown Status'))\n"
    if set(fitted_values(fitted, tests, fix, lambda v: False)) != {"573 Unknown Status", "573"} \
            or fitted_values(general, tests, fix, lambda v: False) \
            or fitted_values(fitted, tests, fix, lambda v: True):
        die("self-test: values copied from the tests are not told from a general fix")
    with tempfile.TemporaryDirectory() as tmp:
        tree, repo = Path(tmp) / "tree", Path(tmp) / "repo"
        for root in (tree, repo):
            (root / "pkg").mkdir(parents=True)
            (root / "pkg" / "mod.py").write_text("x = 1\n")
            (root / "testutil.py").write_text("def check(a, b):\n    assert a == b\n")
        (repo / "pkg" / "mod.py").write_text("x = 2\n")
        (repo / "testutil.py").write_text("def check(a, b):\n    pass\n")
        (repo / "conftest.py").write_text("collect_ignore = ['tests']\n")
        restored = restore_tests_code(tree, repo)
        if restored != ["conftest.py", "testutil.py"] or (repo / "conftest.py").exists() \
                or "assert" not in (repo / "testutil.py").read_text() \
                or (repo / "pkg" / "mod.py").read_text() != "x = 2\n":
            die(f"self-test: the tests' code an agent changed is not put back: {restored}")
    tasks = load_tasks()
    if any(t.get("held_out") for t in unseen_kept(tasks, False, quiet=True)) or \
            len(unseen_kept(tasks, True)) != len(tasks):
        die("self-test: --openings audits held-out tasks unasked, or drops asked ones")
    tuning = [t for t in tasks if not t.get("held_out") and python_for(t["python"])]
    held = [t["name"] for t in sample(tasks, len(tuning)) if t.get("held_out")]
    if held:
        die(f"self-test: the sample holds held-out tasks: {held}")
    print("real-bench self-test: ok")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="real", choices=["real"], help="the task set (real)")
    ap.add_argument("--base-url", help="OpenAI-compatible base URL")
    ap.add_argument("--model", default="local", help="model name sent to the server")
    ap.add_argument("--time-limit", type=int, default=300, help="seconds per task and agent")
    ap.add_argument("--call-timeout", type=int, default=600, help="seconds one model call may take")
    ap.add_argument("--kotef", default=os.environ.get("KOTEF_BIN") or shutil.which("kotef")
                    or str(ROOT / "target" / "release" / "kotef"), help="the kotef binary")
    ap.add_argument("--kotef-model", help="kotef's --model (default openai:MODEL); "
                    "scripted:FILE proves the bench without a server")
    ap.add_argument("--mini-swe-agent", action="store_true", help="also run mini-swe-agent")
    ap.add_argument("--no-kotef", action="store_true", help="skip kotef (with --mini-swe-agent)")
    ap.add_argument("--only", nargs="*", default=[], help="task names to run")
    ap.add_argument("--held-out", action="store_true",
                    help="only the held-out tasks (draw 2; draw 1's were read while tuning)")
    ap.add_argument("--sample", type=int, help="only the N lightest tasks (for CI)")
    ap.add_argument("--keep", help="keep the task copies under this folder")
    ap.add_argument("--json", help="write the rows as JSON to this file")
    ap.add_argument("--edit-format", choices=["auto", "tools", "blocks"], help="kotef's --edit-format")
    ap.add_argument("--runs", type=int, default=1, help="runs per agent; medians are printed")
    ap.add_argument("--check-tasks", action="store_true", help="check the set, no model")
    ap.add_argument("--build-envs", action="store_true", help="build every environment, no model")
    ap.add_argument("--record-known-failing", action="store_true",
                    help="record the tests that fail even with the fix (task authors)")
    ap.add_argument("--self-test", action="store_true", help="check the loss counters")
    ap.add_argument("--openings", action="store_true",
                    help="no model: each task's first repair prompt against a stub server "
                         "(size, files shown, whether the real fix's file and lines are in it)")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    tasks = load_tasks(args.only, args.held_out)
    if args.sample:
        tasks = sample(tasks, args.sample)
    if args.record_known_failing:
        return record_known_failing(tasks)
    if args.build_envs:
        bad = 0
        for t in tasks:
            rec = build_env(t, log=lambda m: print(m, file=sys.stderr))
            bad += not rec.get("ok")
            print(f"{'ok ' if rec.get('ok') else 'BAD'} {t['name']}: python "
                  f"{rec.get('python_exact', t['python'])}, {len(rec['requirements'])} "
                  f"requirements, {rec.get('build_s')} s" + (f": {rec.get('error')}" if
                                                             rec.get("error") else ""))
        sys.exit(1 if bad else 0)
    if args.check_tasks:
        sys.exit(0 if check_tasks(tasks) else 1)
    if args.openings:
        return openings(unseen_kept(tasks, args.held_out or bool(args.only)), args)
    if not args.base_url and (args.mini_swe_agent or not args.kotef_model):
        die("--base-url is needed (scripts/local-model.sh prints one)")
    if not args.no_kotef and not Path(args.kotef).is_file():
        die(f"kotef binary not found at {args.kotef} (cargo build --release, or --kotef PATH)")
    args.kotef = str(Path(args.kotef).resolve())
    run_agents(tasks, args)


if __name__ == "__main__":
    main()
