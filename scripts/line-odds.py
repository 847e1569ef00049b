"""Where the statement a real fix changes would stand if line attempts were ordered by how unsure
the model was of each statement, measured offline from a kept real-project run.

Usage: python3 scripts/line-odds.py KEEP_DIR   (a folder `scripts/agent-bench.py --keep` wrote)

For every task of the run, from kotef's transcripts (`odds`, each reply's token
log-probabilities, recorded since session 31) and the task's `solution/` (the bench's oracle;
kotef never sees it): each statement's first greedy line attempt and
- `place`: the order kotef offered the statements in;
- `changed`: statements the greedy reply changed first;
- `min_chosen`: the least likely token the reply chose (most unsure first);
- `max_other`: the likeliest other token at any point of the reply;
- `copy`: the log-probability of writing the statement back as it was (along the reply);
- `*_prior`: the same plus a share of the place (log of the order), so a late statement
  needs more doubt to come first (`unsure_prior` is the rank kotef gives branches since
  session 32).
Also per task: line attempts made, how many were begun at a statement the fix changes, and
the attempt at which the first branch there came.
Prints per task the rank of the first statement the fix changes under each ordering, then
medians and how often it is in the first three and five. Counts only: no statement text is
printed, so it may be run on the held-out tasks.
"""
import importlib.util, sys, subprocess, json, math, statistics
from pathlib import Path
ARGS = sys.argv[1:]; sys.argv = ["x"]
spec = importlib.util.spec_from_file_location("rb", "scripts/real-bench.py"); rb = importlib.util.module_from_spec(spec); spec.loader.exec_module(rb)
ro = rb._openings()
MARK = ">>>>>>> REPLACE"

def fix_lines(repo):
    sol = Path('benches/real-tasks') / repo.name / 'solution'
    root = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.split()[:1]
    lines = set()
    for f in sorted(p for p in sol.rglob("*") if p.is_file()):
        rel = f.relative_to(sol).as_posix()
        buggy = subprocess.run(["git", "show", f"{root[0]}:{rel}"], cwd=repo, capture_output=True, text=True, errors="replace").stdout
        lines |= set(ro.changed_lines(buggy, f.read_text(errors="replace")))
    return lines

def attempts(repo):
    """(statement, begun prefix, reply content, odds) per line attempt, in order."""
    for tr in sorted((repo / ".sdd" / "runs").glob("*.transcript.jsonl")):
        pending = None
        for line in tr.read_text(errors="replace").splitlines():
            e = json.loads(line)
            if e.get("node") != "coder": continue
            if e["type"] == "model_request":
                m = e.get("messages") or []
                pending = str(m[-1].get("content") or "") if m and m[-1].get("role") == "assistant" else None
            elif e["type"] == "model_reply" and pending is not None:
                if "<<<<<<< SEARCH\n" in pending:
                    head, rest = pending.split("<<<<<<< SEARCH\n", 1)
                    stmt, prefix = rest.split("\n=======\n", 1) if "\n=======\n" in rest else (rest, "")
                    content = e.get("content") or ""
                    if content.startswith(pending): content = content[len(pending):]
                    yield stmt, prefix, content, e.get("odds") or []
                pending = None

def metrics(stmt, content, odds):
    """Over the tokens of the new statement (up to the block's end): changed?, the least likely
    chosen token, the likeliest other, the reply's log-probability."""
    end = content.find(MARK)
    new = content[:end] if end >= 0 else content
    changed = new.strip() != stmt.strip()
    pos = 0; chosen = []; others = []
    for o in odds:
        if pos >= len(new): break
        chosen.append(o["logprob"]); others.append(max(o["others"], default=-99.0))
        pos += o["chars"]
    # log P(the statement written back as it was), along the reply: the chosen tokens' up to
    # where the reply leaves the statement, then at best the likeliest other there.
    orig = stmt + "\n"
    d = next((i for i, (a, b) in enumerate(zip(orig, new)) if a != b), min(len(orig), len(new)))
    pos = 0; copy = 0.0
    for o in odds:
        if pos + o["chars"] > d or pos >= len(orig):
            if d < len(orig): copy += max(o["others"], default=-20.0)
            break
        copy += o["logprob"]; pos += o["chars"]
    return dict(changed=changed, copy=copy, min_chosen=min(chosen, default=0.0), max_other=max(others, default=-99.0),
                total=sum(chosen), n=len(chosen))

def main():
    keep = Path(ARGS[0])
    rows = []
    for repo in sorted(p for p in keep.rglob("*") if (p / ".sdd" / "runs").is_dir()):
        fl = fix_lines(repo)
        first = {}  # statement -> (order, metrics, is_fix)
        made = at_fix = 0; branch_at_fix = None
        for stmt, prefix, content, odds in attempts(repo):
            is_fix = any(l.strip() in fl for l in stmt.splitlines() if l.strip())
            made += 1; at_fix += is_fix
            if prefix and is_fix and branch_at_fix is None: branch_at_fix = made
            if prefix or stmt in first: continue
            first[stmt] = (len(first), metrics(stmt, content, odds), is_fix)
        if not first: continue
        items = list(first.values())
        fixes = [o for o, m, f in items if f]
        def rank(key):
            order = sorted(items, key=key)
            return next((i + 1 for i, (o, m, f) in enumerate(order) if f), None)
        r = dict(task=repo.name, statements=len(items), attempts=made, at_fix=at_fix,
                 first_branch_at_fix=branch_at_fix, with_odds=sum(1 for o, m, f in items if m["n"]),
                 place=rank(lambda x: x[0]),
                 changed=rank(lambda x: (not x[1]["changed"], x[0])),
                 min_chosen=rank(lambda x: (x[1]["min_chosen"], x[0])),
                 max_other=rank(lambda x: (-x[1]["max_other"], x[0])),
                 unsure_prior=rank(lambda x: (x[1]["min_chosen"] + 0.5 * math.log(x[0] + 2), x[0])),
                 other_prior=rank(lambda x: (-x[1]["max_other"] + 0.5 * math.log(x[0] + 2), x[0])),
                 copy=rank(lambda x: (x[1]["copy"], x[0])),
                 copy_prior=rank(lambda x: (x[1]["copy"] + 1.0 * math.log(x[0] + 2), x[0])),
                 changed_frac=round(sum(m["changed"] for o, m, f in items) / len(items), 2),
                 fix_changed=[m["changed"] for o, m, f in items if f][:3],
                 fix_min=[m["min_chosen"] for o, m, f in items if f][:3])
        rows.append(r)
        print(r)
    print(f"line attempts begun at a statement the fix changes: {sum(r['at_fix'] for r in rows)} of {sum(r['attempts'] for r in rows)}; "
          f"a branch there in {sum(1 for r in rows if r['first_branch_at_fix'])} tasks, first at attempt {[r['first_branch_at_fix'] for r in rows if r['first_branch_at_fix']]}")
    keys = ["copy", "copy_prior", "place", "changed", "min_chosen", "max_other", "unsure_prior", "other_prior"]
    hit = [r for r in rows if r["place"]]
    print(f"\n{len(rows)} tasks with line attempts; fix statement offered in {len(hit)}")
    for k in keys:
        ranks = [r[k] for r in hit]
        print(f"{k:14} median rank {statistics.median(ranks) if ranks else '-'}  top-3 {sum(1 for x in ranks if x <= 3)}  top-5 {sum(1 for x in ranks if x <= 5)}  ranks {ranks}")

main()
