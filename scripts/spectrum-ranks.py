"""Where the line a real fix changes ranks among the spectrum's suspects, measured offline on the
tuning tasks of the real-project set (no model): for each task, a fresh copy of its tree runs
the failing test's class (or file) once under kotef's own tracer
(`src/graph/nodes/repair/spectrum_tracer.py`), and the record is ranked two ways:

- `score`: the functions told apart by score alone (at most six share a score as high), their
  lines best score first (the ranking before session 36; names' nearness left out);
- `both`: the functions told by score and by the path the failing test took alone in them
  (best line score, how many lines score that, the function's score), in turn; each
  function's lines most suspect first (a line whose next run line scores higher is as suspect
  as that line and comes first), the functions by turns, then most suspect first
  (`Spectrum::telling_near`, `suspected` and `rank`, session 36).

Prints per task the 0-based place of the first suspect line the fix changes (`-` when none of
the told functions' lines is one), then how many tasks have it among the first 8, 12, 16 and 30.
The frames and the sweep, which come before and beside the suspects in kotef, are left out.

Usage: python3 scripts/spectrum-ranks.py [TASK ...]   (default: every tuning task; the held-out
tasks are refused: they are kept for measurement)
"""
import collections
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = 6
DEADLINE_S = 40
TIMEOUT_S = 120


def _real_bench():
    spec = importlib.util.spec_from_file_location("rb", ROOT / "scripts" / "real-bench.py")
    mod = importlib.util.module_from_spec(spec)
    argv, sys.argv = sys.argv, ["real-bench"]
    spec.loader.exec_module(mod)
    sys.argv = argv
    return mod


def traced(t, repo, work):
    """The record of the failing test's class run under the tracer, and the failing test's name."""
    words = t["test_command"].split()
    i = [j for j, w in enumerate(words) if "::" in w or (w.count(".") >= 2 and "test" in w)][-1]
    parent, name = words[i].rsplit("::" if "::" in words[i] else ".", 1)
    tracer = work / "tracer"
    tracer.mkdir(exist_ok=True)
    (tracer / "sitecustomize.py").write_text(
        (ROOT / "src/graph/nodes/repair/spectrum_tracer.py").read_text())
    out = work / f"{t['name']}.json"
    env = dict(os.environ, PYTHONPATH=str(tracer), PYTHONDONTWRITEBYTECODE="1",
               SPECTRUM_TRACE_ROOT=str(repo), SPECTRUM_TRACE_OUT=str(out),
               SPECTRUM_TRACE_FAILING=name, SPECTRUM_TRACE_DEADLINE=str(DEADLINE_S))
    try:
        subprocess.run(words[:i] + [parent] + words[i + 1:], cwd=repo, env=env,
                       capture_output=True, timeout=TIMEOUT_S, start_new_session=True)
    except subprocess.TimeoutExpired:
        pass
    return (json.loads(out.read_text()) if out.is_file() else None), name


def fix_lines(t, repo, changed_lines):
    """The (path, 1-based line) of the buggy tree whose text the real patch changes."""
    sol, out = t["dir"] / "solution", set()
    for f in (p for p in sol.rglob("*") if p.is_file()):
        rel = f.relative_to(sol).as_posix()
        if not (repo / rel).is_file():
            continue
        buggy = (repo / rel).read_text(errors="replace")
        texts = {x.strip() for x in changed_lines(buggy, f.read_text(errors="replace")) if x.strip()}
        out |= {(rel, n + 1) for n, line in enumerate(buggy.splitlines()) if line.strip() in texts}
    return out


def spectrum(record, failing):
    """Function scores, line scores and each function's run lines, as `Spectrum::read` makes them."""
    called, ran = collections.defaultdict(lambda: [0, 0]), collections.defaultdict(lambda: [0, 0])
    fails = 0
    for test, files in record["tests"].items():
        if not test.startswith("test"):
            continue
        f = test == failing
        fails += f
        for path, defs in files.items():
            for first, lines in defs.items():
                called[(path, int(first))][0 if f else 1] += 1
                for line in lines:
                    ran[(path, line)][0 if f else 1] += 1
    if not fails:
        return None
    ochiai = lambda d: {k: a / math.sqrt(fails * (a + b)) for k, (a, b) in d.items() if a}
    fns, lns = ochiai(called), ochiai(ran)
    source = lambda p: not (p.startswith("test") or "/test" in p)
    firsts = collections.defaultdict(list)
    for p, first in sorted(fns):
        firsts[p].append(first)
    run = {}
    for (p, first) in fns:
        nxt = min((x for x in firsts[p] if x > first), default=math.inf)
        run[(p, first)] = sorted((l, s) for (q, l), s in lns.items() if q == p and first <= l < nxt)
    return {k: s for k, s in fns.items() if source(k[0])}, run


def pooled(keyed):
    keyed = sorted(keyed, key=lambda x: x[0], reverse=True)
    out = []
    for key, k in keyed:
        if sum(1 for other, _ in keyed if other >= key) > POOL:
            break
        out.append(k)
    return out


def suspected(run):
    marked = [(l, run[i + 1][1] if i + 1 < len(run) and run[i + 1][1] > s else s,
               i + 1 < len(run) and run[i + 1][1] > s) for i, (l, s) in enumerate(run)]
    return [(l, s) for l, s, _ in sorted(marked, key=lambda x: (-x[1], not x[2], x[0]))]


def by_score(fns, run):
    told = pooled([((s,), k) for k, s in sorted(fns.items())])
    lines = [((k[0], l), s) for k in told for l, s in run[k]]
    return [k for k, _ in sorted(lines, key=lambda x: -x[1])]


def by_both(fns, run):
    a = pooled([((s,), k) for k, s in sorted(fns.items())])
    keyed = []
    for k, s in sorted(fns.items()):
        best = max((x for _, x in run[k]), default=0.0)
        keyed.append(((best, sum(1 for _, x in run[k] if x >= best), s), k))
    b = pooled(keyed)
    told = []
    for pair in zip(a + [None] * len(b), b + [None] * len(a)):
        told += [k for k in pair if k is not None and k not in told]
    each = [[((k[0], l), s) for l, s in suspected(run[k])] for k in told]
    out = []
    while any(each):
        out += [q.pop(0) for q in each if q]
    return [k for k, _ in sorted(out, key=lambda x: -x[1])]


def main():
    rb = _real_bench()
    changed_lines = rb._openings().changed_lines
    tasks = rb.load_tasks(only=sys.argv[1:])
    if sys.argv[1:] and any(t.get("held_out") for t in tasks):
        rb.die("the held-out tasks are kept for measurement")
    tasks = [t for t in tasks if not t.get("held_out")]
    places = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for t in tasks:
            repo = rb.fresh_repo(t, work)
            record, failing = traced(t, repo, work)
            s = spectrum(record, failing) if record else None
            fix = fix_lines(t, repo, changed_lines)
            row = []
            for name, rank in (("score", by_score), ("both", by_both)):
                order = rank(*s) if s else []
                at = next((i for i, k in enumerate(order) if k in fix), None)
                places[name].append(at)
                row.append(f"{name}={'-' if at is None else at}")
            print(f"{t['name']:14} {' '.join(row)}", flush=True)
    for name, ps in places.items():
        within = [sum(1 for p in ps if p is not None and p < n) for n in (8, 12, 16, 30)]
        print(f"{name}: of {len(ps)} tasks, the fixed line among the first 8/12/16/30 suspects: "
              + "/".join(map(str, within)))


if __name__ == "__main__":
    main()
