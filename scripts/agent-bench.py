#!/usr/bin/env python3
"""Runs kotef's public task set (benches/agent-tasks/<name>/) against an OpenAI-compatible
server, one task at a time, and prints per task: solved, ending, model calls, tokens, wall time,
plus totals. With --mini-swe-agent, runs mini-swe-agent (PyPI `mini-swe-agent`, text-based
config, in a venv of its own) on the same tasks against the same server, side by side.

Each task directory holds `task.json` ({goal, test_command, protected, kind}, and for tasks
imported from a published data set `source` {dataset, task_id, url, licence} and `held_out`),
`repo/` (the
repository as the agent gets it, with a failing test) and, for solvable tasks, `solution/`
(files that fix it; used by --check-tasks only). "Solved" is judged independently after the
agent stops: the protected files (the tests) are restored from the task, then the test command
runs in the agent's copy and must exit 0.

    scripts/local-model.sh                                    # prints the base URL
    scripts/agent-bench.py --base-url http://127.0.0.1:18080/v1 [--mini-swe-agent]
    scripts/agent-bench.py --base-url URL --runs 2 --mini-swe-agent   # medians of two runs
    scripts/agent-bench.py --base-url URL --held-out                 # the held-out half only
    scripts/agent-bench.py --check-tasks                      # no model: the task set itself
    scripts/agent-bench.py --tasks real --check-tasks [--sample 3]   # the real-project set

Totals are printed per group: the hand-written public tasks (kotef was tuned on them), and the
imported tasks' tuning half and held-out half (`scripts/import-humanevalfix.py`).
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "benches" / "agent-tasks"
CACHE = Path(os.environ.get("KOTEF_BENCH_CACHE", Path.home() / ".cache" / "kotef" / "bench"))
MINI_VERSION = "2.4.6"
JUDGE_TIMEOUT_S = 300

# Runs inside the mini-swe-agent venv: one task, a JSON summary on stdout's last line.
MINI_DRIVER = r'''
import json, sys, time
from pathlib import Path
import yaml
from minisweagent import package_dir
from minisweagent.agents.default import AgentConfig, DefaultAgent
from minisweagent.environments.local import LocalEnvironment
from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

repo, task, base_url, model, limit, out = sys.argv[1:7]
cfg = yaml.safe_load((Path(package_dir) / "config" / "mini_textbased.yaml").read_text())
agent_cfg = {k: v for k, v in cfg["agent"].items() if k in AgentConfig.model_fields}
agent_cfg.update(step_limit=0, cost_limit=0, wall_time_limit_seconds=int(limit), output_path=out)
model_cfg = dict(cfg.get("model", {}))
model_cfg["model_kwargs"] = dict(model_cfg.get("model_kwargs", {}),
                                 api_base=base_url, api_key="sk-local",
                                 temperature=0.2, max_tokens=2048)
model_cfg.update(model_name="openai/" + model, cost_tracking="ignore_errors")
env_cfg = dict(cfg.get("environment", {}), cwd=repo, timeout=120)
agent = DefaultAgent(LitellmTextbasedModel(**model_cfg), LocalEnvironment(**env_cfg), **agent_cfg)
try:
    result = agent.run(task)
    status = result.get("exit_status", "")
except Exception as e:  # the agent's own failures are an ending, not a crash of the bench
    status = type(e).__name__
prompt = completion = 0
for m in agent.messages:
    resp = (m.get("extra") or {}).get("response")
    usage = resp.get("usage") if isinstance(resp, dict) else None
    if usage:
        prompt += usage.get("prompt_tokens") or 0
        completion += usage.get("completion_tokens") or 0
print(json.dumps({"ending": status, "model_calls": agent.n_calls,
                  "prompt_tokens": prompt, "completion_tokens": completion}))
'''


def die(msg):
    print(f"agent-bench: {msg}", file=sys.stderr)
    sys.exit(1)


def load_tasks(only):
    if not TASKS.is_dir():
        die(f"no task set at {TASKS}")
    tasks = []
    for d in sorted(TASKS.iterdir()):
        if not (d / "task.json").is_file():
            continue
        if only and d.name not in only:
            continue
        meta = json.loads((d / "task.json").read_text())
        for key in ("goal", "test_command"):
            if not meta.get(key):
                die(f"{d / 'task.json'} lacks {key!r}")
        meta["name"] = d.name
        meta["dir"] = d
        tasks.append(meta)
    if only:
        missing = set(only) - {t["name"] for t in tasks}
        if missing:
            die(f"unknown task(s): {', '.join(sorted(missing))}")
    return tasks


def fresh_repo(task, parent):
    """A git repository holding the task's repo/ as one commit."""
    repo = Path(parent) / task["name"]
    shutil.copytree(task["dir"] / "repo", repo)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "task"]):
        subprocess.run(git + args, cwd=repo, check=True)
    return repo


def run_bounded(cmd, cwd, limit_s, env=None):
    """Runs `cmd` in its own process group; kills the group after `limit_s`. (rc, out, err, s)"""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err, time.monotonic() - start
    return p.returncode, out, err, time.monotonic() - start


def judge(task, repo):
    """Restores the protected files, runs the test command: whether it passes."""
    for rel in task.get("protected", []):
        src = task["dir"] / "repo" / rel
        if src.is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, repo / rel)  # a fresh mtime, so build tools see the change
    rc, _, _, _ = run_bounded(["sh", "-c", task["test_command"]], repo, JUDGE_TIMEOUT_S)
    return rc == 0


def run_kotef(task, repo, args):
    env = dict(os.environ, OPENAI_BASE_URL=args.base_url or "",
               OPENAI_API_KEY=os.environ.get("OPENAI_API_KEY", "sk-local"))
    config = repo.parent / f"{task['name']}.kotef.toml"
    config.write_text(f"[model]\ntimeout_s = {args.call_timeout}\n")
    cmd = [args.kotef, "run", "--repo", str(repo), "--goal", task["goal"],
           "--test-command", task["test_command"],
           "--model", getattr(args, "kotef_model", None) or f"openai:{args.model}",
           "--config", str(config), "--time-budget-s", str(args.time_limit), "--json"]
    if args.edit_format:
        cmd += ["--edit-format", args.edit_format]
    rc, out, err, wall = run_bounded(cmd, repo, args.time_limit + 60, env)
    row = {"ending": "killed (time limit)" if rc is None else f"exit {rc}",
           "model_calls": None, "tokens": None, "wall_s": wall}
    try:
        summary = json.loads(out.strip().splitlines()[-1])
        row["ending"] = summary.get("terminal_status") or row["ending"]
        if summary.get("stop_rule"):
            row["ending"] += f" ({summary['stop_rule']})"
        row["model_calls"] = summary.get("model_calls")
        row["tokens"] = (summary.get("prompt_tokens") or 0) + (summary.get("completion_tokens") or 0)
        row["reason"] = summary.get("stop_reason")
        row.update(server_timings(summary.get("report_path")))
        row["attempts"] = attempt_kinds(summary.get("transcript_path"))
        row["stones"] = stone_counts(summary.get("transcript_path"))
    except (ValueError, IndexError):
        row["reason"] = (err or "").strip().splitlines()[-1:] or [""]
        row["reason"] = row["reason"][0]
    return row


def server_timings(report_md):
    """The server's own figures summed over the run's calls (llama.cpp's `timings`, kept per
    call in the report's JSON twin): uncached and cached prompt tokens, prompt and
    generation seconds, and the median call's latency."""
    if not report_md:
        return {}
    try:
        report = json.loads(Path(report_md).with_suffix(".json").read_text())
    except (OSError, ValueError):
        return {}
    calls = report.get("calls") or []
    timed = [c["timings"] for c in calls if c.get("timings")]
    lat = sorted(c.get("latency_ms") or 0 for c in calls)
    out = {"median_call_s": lat[len(lat) // 2] / 1000 if lat else None,
           "call_s": [round((c.get("latency_ms") or 0) / 1000, 2) for c in calls],
           "call_prompt_s": [round(t.get("prompt_ms", 0) / 1000, 2) for t in timed],
           "call_generation_s": [round(t.get("generation_ms", 0) / 1000, 2) for t in timed]}
    if timed:
        out.update(
            uncached_prompt_tokens=sum(t.get("prompt_uncached", 0) for t in timed),
            cached_prompt_tokens=sum(t.get("prompt_cached", 0) for t in timed),
            prompt_s=round(sum(t.get("prompt_ms", 0) for t in timed) / 1000, 1),
            generation_s=round(sum(t.get("generation_ms", 0) for t in timed) / 1000, 1),
        )
    return out


ATTEMPT_KINDS = ("free", "line")


def attempt_kinds(transcript):
    """The repair loop's model attempts by kind, from the run's transcript: a line attempt is
    a request whose last message is a begun reply (the assistant's), a free one any other
    coder request in the loop; per kind the calls, their seconds, the test runs they led to and
    how many of those passed."""
    out = {k: {"calls": 0, "s": 0.0, "tested": 0, "passed": 0} for k in ATTEMPT_KINDS}
    try:
        lines = Path(transcript).read_text(errors="replace").splitlines() if transcript else []
    except OSError:
        return out
    kind = None
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("type") == "model_request" and e.get("node") == "coder":
            msgs = e.get("messages") if isinstance(e.get("messages"), list) else []
            repair = bool(msgs) and str(msgs[0].get("content", "")).startswith("You fix a bug.")
            kind = None
            if repair:
                kind = "line" if msgs[-1].get("role") == "assistant" else "free"
                out[kind]["calls"] += 1
        elif e.get("type") == "model_reply" and kind:
            out[kind]["s"] += (e.get("latency_ms") or 0) / 1000
        elif e.get("type") == "verification" and kind:
            out[kind]["tested"] += 1
            out[kind]["passed"] += bool(e.get("passed"))
            kind = None
    return out


def stone_counts(transcript):
    """The repair loop's stepping stones, from the run's `stepping_stones` entries: the stones
    found, the combined runs, and the combinations that passed."""
    out = {"stones": 0, "combined": 0, "passed": 0}
    try:
        lines = Path(transcript).read_text(errors="replace").splitlines() if transcript else []
    except OSError:
        return out
    for line in lines:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("type") != "tool_call" or e.get("name") != "stepping_stones":
            continue
        args = e.get("arguments") if isinstance(e.get("arguments"), dict) else {}
        out["stones"] += bool(args.get("stone"))
        out["combined"] += int(args.get("combined_runs") or 0)
        out["passed"] += bool(args.get("passed"))
    return out


def print_stone_counts(rows):
    """The stepping stones over the rows (kotef's only), when any was found."""
    t = {k: sum((r.get("stones") or {}).get(k, 0) for r in rows)
         for k in ("stones", "combined", "passed")}
    if t["stones"]:
        tasks = sum(1 for r in rows if (r.get("stones") or {}).get("stones"))
        print(f"stepping stones: {t['stones']} found in {tasks} task(s), "
              f"{t['combined']} combined runs, {t['passed']} passed")


def print_attempt_kinds(rows):
    """The repair loop's attempts by kind over the rows (kotef's only)."""
    totals = {k: {"calls": 0, "s": 0.0, "tested": 0, "passed": 0} for k in ATTEMPT_KINDS}
    for r in rows:
        for k, v in (r.get("attempts") or {}).items():
            for f in totals.get(k, {}):
                totals[k][f] += v.get(f, 0)
    if not any(t["calls"] for t in totals.values()):
        return
    print("repair attempts by kind: " + "; ".join(
        f"{k} {t['calls']} calls, {t['s']:.0f} s, {t['tested']} tested, {t['passed']} passed"
        for k, t in totals.items()))


def mini_python():
    venv = CACHE / "mini-venv"
    py = venv / "bin" / "python"
    probe = [str(py), "-c", "import minisweagent"]
    if py.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return py
    print(f"agent-bench: installing mini-swe-agent=={MINI_VERSION} into {venv}", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", f"mini-swe-agent=={MINI_VERSION}"],
                   check=True)
    return py


def run_mini(task, repo, args, py):
    driver = repo.parent / "mini_driver.py"
    driver.write_text(MINI_DRIVER)
    traj = repo.parent / f"{task['name']}.mini.traj.json"
    env = dict(os.environ, MSWEA_COST_TRACKING="ignore_errors", MSWEA_SILENT_STARTUP="1")
    cmd = [str(py), str(driver), str(repo), task["goal"], args.base_url, args.model,
           str(args.time_limit), str(traj)]
    rc, out, err, wall = run_bounded(cmd, repo, args.time_limit + 60, env)
    row = {"ending": "killed (time limit)" if rc is None else f"exit {rc}",
           "model_calls": None, "tokens": None, "wall_s": wall}
    try:
        s = json.loads(out.strip().splitlines()[-1])
        row.update(ending=s["ending"] or "?", model_calls=s["model_calls"],
                   tokens=s["prompt_tokens"] + s["completion_tokens"])
    except (ValueError, IndexError, KeyError):
        row["reason"] = ((err or "").strip().splitlines() or [""])[-1]
    return row


def fmt(v):
    return "-" if v is None else (f"{v:.0f}" if isinstance(v, float) else str(v))


def group(task):
    """Which part of the set a task is in: the hand-written public tasks kotef was tuned on,
    or the imported real-bug tasks' tuning and held-out halves."""
    if not task.get("source"):
        return "public (hand-written)"
    return "imported, held out" if task.get("held_out") else "imported, tuning half"


def print_groups(rows):
    groups = {}
    for r in rows:
        if r["kind"] == "impossible":
            continue
        groups.setdefault(r.get("group", "?"), []).append(r)
    for g, rs in sorted(groups.items()):
        lat = sorted(r["median_call_s"] for r in rs if r.get("median_call_s") is not None)
        med = f", median of per-task median call {lat[len(lat) // 2]:.1f} s" if lat else ""
        print(f"{g}: solved {sum(r['solved'] for r in rs)}/{len(rs)}{med}")


def print_table(agent, rows):
    print(f"\n## {agent}\n")
    print("| task | kind | solved | ending | model calls | tokens | uncached prompt tokens "
          "| prompt s | generation s | median call s | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {r['kind']} | {'yes' if r['solved'] else 'no'} | {r['ending']} "
              f"| {fmt(r['model_calls'])} | {fmt(r['tokens'])} "
              f"| {fmt(r.get('uncached_prompt_tokens'))} | {fmt(r.get('prompt_s'))} "
              f"| {fmt(r.get('generation_s'))} | {fmt(r.get('median_call_s'))} "
              f"| {fmt(r['wall_s'])} |")
    fix = [r for r in rows if r["kind"] != "impossible"]
    solved = [r for r in fix if r["solved"]]
    tokens = sum(r["tokens"] or 0 for r in rows)
    calls = sum(r["model_calls"] or 0 for r in rows)
    wall = sum(r["wall_s"] for r in rows)
    per_solved = f"{tokens / len(solved):.0f}" if solved else "-"
    calls_per_solved = f"{calls / len(solved):.1f}" if solved else "-"
    impossible = [r for r in rows if r["kind"] == "impossible"]
    uncached = sum(r.get("uncached_prompt_tokens") or 0 for r in rows)
    cached = sum(r.get("cached_prompt_tokens") or 0 for r in rows)
    p_s = sum(r.get("prompt_s") or 0 for r in rows)
    g_s = sum(r.get("generation_s") or 0 for r in rows)
    if uncached or cached:
        print(f"\nserver timings: {uncached} uncached of {uncached + cached} prompt tokens "
              f"({100 * uncached / max(uncached + cached, 1):.0f} %), prompt {p_s:.0f} s, "
              f"generation {g_s:.0f} s ({100 * g_s / max(p_s + g_s, 1):.0f} % of model time)")
    calls_s = [x for r in rows for x in r.get("call_s") or []]
    if calls_s:
        med = lambda key: median([x for r in rows for x in r.get(key) or []] or [0])
        print(f"model calls: median {median(calls_s):.1f} s over {len(calls_s)} calls "
              f"(median prompt {med('call_prompt_s'):.1f} s, median generation "
              f"{med('call_generation_s'):.1f} s)")
    print_attempt_kinds(rows)
    print_stone_counts(rows)
    print()
    print_groups(rows)
    print(f"\ntotal: solved {len(solved)}/{len(fix)}, model calls {calls} "
          f"({calls_per_solved} per solved task), tokens {tokens} "
          f"({per_solved} per solved task), wall {wall:.0f} s")
    if impossible:
        print("impossible tasks: " + "; ".join(
            f"{r['task']}: {r['ending']}, {fmt(r['model_calls'])} calls, {fmt(r['wall_s'])} s"
            + (f" ({r['reason']})" if r.get("reason") else "") for r in impossible))


def check_tasks(tasks):
    """Without a model: each test fails as given and, for solvable tasks, passes when fixed."""
    bad = 0
    with tempfile.TemporaryDirectory(prefix="kotef-bench-") as tmp:
        for t in tasks:
            repo = fresh_repo(t, tmp)
            fails = not judge(t, repo)
            fixed = None
            if (t["dir"] / "solution").is_dir():
                shutil.copytree(t["dir"] / "solution", repo, dirs_exist_ok=True,
                                copy_function=shutil.copy)
                fixed = judge(t, repo)
            # cheats/<name>/ holds known ways to game the test (a constant return, a
            # swallowed error): each must still fail, or the task can be "solved" unsolved.
            gamed = []
            cheats = t["dir"] / "cheats"
            for cheat in sorted(cheats.iterdir()) if cheats.is_dir() else []:
                repo = fresh_repo(t, Path(tmp) / "cheats" / cheat.name)
                shutil.copytree(cheat, repo, dirs_exist_ok=True, copy_function=shutil.copy)
                if judge(t, repo):
                    gamed.append(cheat.name)
            ok = (fails and not gamed
                  and (fixed if fixed is not None else t.get("kind") == "impossible"))
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {t['name']}: fails as given: {fails}, "
                  f"passes when fixed: {'-' if fixed is None else fixed}"
                  + (f", gamed by: {', '.join(gamed)}" if gamed else ""))
    print(f"{len(tasks) - bad} passed, {bad} failed")
    return bad == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", help="OpenAI-compatible base URL, e.g. http://127.0.0.1:18080/v1")
    ap.add_argument("--model", default="local", help="model name sent to the server")
    ap.add_argument("--time-limit", type=int, default=300, help="seconds per task and agent")
    ap.add_argument("--call-timeout", type=int, default=600, help="kotef's idle limit ([model] timeout_s): seconds a model call may show no progress")
    ap.add_argument("--kotef", default=os.environ.get("KOTEF_BIN") or shutil.which("kotef")
                    or str(ROOT / "target" / "release" / "kotef"), help="the kotef binary")
    ap.add_argument("--mini-swe-agent", action="store_true", help="also run mini-swe-agent")
    ap.add_argument("--no-kotef", action="store_true", help="skip kotef (with --mini-swe-agent)")
    ap.add_argument("--only", nargs="*", default=[], help="task names to run")
    ap.add_argument("--keep", help="keep the task copies under this folder")
    ap.add_argument("--json", help="write the rows as JSON to this file")
    ap.add_argument("--check-tasks", action="store_true", help="check the task set, no model")
    ap.add_argument("--edit-format", choices=["auto", "tools", "blocks"],
                    help="kotef's --edit-format (default: kotef's own, auto)")
    ap.add_argument("--runs", type=int, default=1,
                    help="run the whole set this many times per agent; medians are printed")
    ap.add_argument("--held-out", action="store_true",
                    help="only the imported tasks' held-out half")
    ap.add_argument("--tasks", choices=["agent", "real"], default="agent",
                    help="the task set: agent (benches/agent-tasks) or real (benches/real-tasks, "
                         "run by scripts/real-bench.py, which takes the same options and "
                         "--sample N)")
    argv = sys.argv[1:]
    if "--tasks=real" in argv or any(a == "--tasks" and argv[i + 1:i + 2] == ["real"]
                                     for i, a in enumerate(argv)):
        return real_bench_main()
    args = ap.parse_args()
    tasks = load_tasks(args.only)
    if args.held_out:
        tasks = [t for t in tasks if t.get("held_out")]
    if args.check_tasks:
        sys.exit(0 if check_tasks(tasks) else 1)
    if not args.base_url:
        die("--base-url is needed (scripts/local-model.sh prints one)")
    if not args.no_kotef and not Path(args.kotef).is_file():
        die(f"kotef binary not found at {args.kotef} (cargo build --release, or --kotef PATH)")
    args.kotef = str(Path(args.kotef).resolve())  # tasks run with their own working folder
    agents = [] if args.no_kotef else [("kotef", run_kotef)]
    py = None
    if args.mini_swe_agent:
        py = mini_python()
        agents.append(("mini-swe-agent", lambda t, r, a: run_mini(t, r, a, py)))
    if not agents:
        die("nothing to run")
    results = {name: [] for name, _ in agents}
    parent = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kotef-bench-"))
    parent.mkdir(parents=True, exist_ok=True)
    try:
        for run_no in range(1, args.runs + 1):
            for t in tasks:
                for name, run in agents:
                    work = parent / f"run{run_no}" / name
                    work.mkdir(parents=True, exist_ok=True)
                    repo = fresh_repo(t, work)
                    row = run(t, repo, args)
                    row.update(task=t["name"], kind=t.get("kind", "fix"), group=group(t),
                               run=run_no, solved=judge(t, repo),
                               edit_format=args.edit_format or "auto")
                    results[name].append(row)
                    print(f"agent-bench: run {run_no} {name} {t['name']}: solved={row['solved']} "
                          f"ending={row['ending']} calls={fmt(row['model_calls'])} "
                          f"tokens={fmt(row['tokens'])} wall={row['wall_s']:.0f}s",
                          file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(parent, ignore_errors=True)
    for name, rows in results.items():
        for run_no in range(1, args.runs + 1):
            print_table(f"{name}, run {run_no}" if args.runs > 1 else name,
                        [r for r in rows if r["run"] == run_no])
    if args.runs > 1:
        print("\n## medians over runs\n")
        for name, rows in results.items():
            per_group = {}
            for r in rows:
                if r["kind"] == "impossible":
                    continue
                per_group.setdefault(r["group"], {}).setdefault(r["run"], 0)
                per_group[r["group"]][r["run"]] += r["solved"]
            for g, by_run in sorted(per_group.items()):
                counts = sorted(by_run.values())
                n = sum(1 for r in rows if r["group"] == g and r["run"] == 1)
                print(f"{name} {g}: solved per run {counts}, median {median(counts)}/{n}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str) + "\n")


def real_bench_main():
    """`--tasks real`: the real-project set, run by scripts/real-bench.py (same options)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("real_bench", ROOT / "scripts" / "real-bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(sys.argv[1:])


def median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


if __name__ == "__main__":
    main()
