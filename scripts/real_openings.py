"""What kotef's first repair prompt shows of each real-project task, without a model
(`scripts/real-bench.py --openings`).

kotef runs each task against a stub OpenAI-compatible server on loopback that answers every
call at once with a reply holding no change, so a task takes seconds. From the run's
transcript the audit reads the first coder request and prints, per task: its size (tokens:
the local model server's /tokenize when `--base-url` reaches one, else characters / 3.5), the
repository's file count, the files it shows, and two oracle checks against the task's
`solution/` (the real fix): whether the fixed file is shown, and whether the lines the fix
changes are in the prompt. The stub says it is llama.cpp (its replies carry `timings`), so
kotef also makes its line attempts (a reply begun at one statement), which the stub answers
with nothing written; the audit reads which statements were offered and whether one of them
is a line the fix changes, and after how many offers. The oracle is the bench's, never kotef's: kotef does not see
`solution/`. These are the localisation figures issue 30 asks for (prompt tokens per call
against the repository's file count; the failure's files shown), measured the same way for
every task and every change.
"""
import difflib
import json
import re
import statistics
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

STUB_REPLY = "I cannot tell which line is wrong."


# llama.cpp's per-reply timings: kotef reads them as a server that continues a begun reply.
STUB_TIMINGS = {"prompt_n": 400, "prompt_ms": 1000.0, "predicted_n": 8, "predicted_ms": 100.0}


class _Stub(BaseHTTPRequestHandler):
    """Answers every chat completion at once with STUB_REPLY, streamed or not; a reply begun
    for it (a last assistant message) is ended at once, with nothing written."""

    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        usage = {"prompt_tokens": 1, "completion_tokens": 8, "total_tokens": 9}
        messages = body.get("messages") or [{}]
        begun = messages[-1].get("role") == "assistant"
        reply = ">>>>>>> REPLACE\n```\n" if begun else STUB_REPLY
        if body.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for chunk in ({"choices": [{"index": 0, "delta": {"role": "assistant",
                                                              "content": reply}}]},
                          {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                           "usage": usage, "timings": STUB_TIMINGS}):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        out = json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant", "content": reply}}],
                          "usage": usage, "timings": STUB_TIMINGS}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self):
        self.send_response(404)
        self.end_headers()


def stub_server():
    """A stub server on an ephemeral loopback port: (server, base URL)."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/v1"


def token_counter(base_url):
    """Counts tokens with a llama.cpp server's /tokenize at `base_url` when it answers, else
    estimates (characters / 3.5). Returns (count function, its name)."""
    if base_url:
        root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))

        def count(text):
            req = urllib.request.Request(root + "/tokenize", json.dumps({"content": text}).encode(),
                                         {"content-type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                return len(json.load(r)["tokens"])
        try:
            count("probe")
            return count, "the server's tokenizer"
        except (OSError, ValueError, KeyError):
            pass
    return (lambda text: round(len(text) / 3.5)), "characters / 3.5"


def coder_requests(repo):
    """Each coder request's messages, in order, from the run's transcripts."""
    for tr in sorted((repo / ".sdd" / "runs").glob("*.transcript.jsonl")):
        for line in tr.read_text(errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") == "model_request" and e.get("node") == "coder":
                yield e.get("messages") or []


def first_repair_prompt(repo):
    """The first coder request's user text holding "# Files", from the run's transcript."""
    for msgs in coder_requests(repo):
        text = "\n".join(str(m.get("content") or "") for m in msgs)
        if "\n# Files\n" in text:
            return text
    return None


def offered_statements(repo):
    """The statements kotef's line attempts offered, in order, first offers only: the search
    half of each reply begun for the model (a coder request whose last message is the
    assistant's)."""
    out = []
    for msgs in coder_requests(repo):
        if not msgs or msgs[-1].get("role") != "assistant":
            continue
        begun = str(msgs[-1].get("content") or "")
        stmt = begun.split("<<<<<<< SEARCH\n", 1)[-1].split("\n=======", 1)[0]
        if stmt not in out:
            out.append(stmt)
    return out


def changed_lines(buggy, fixed):
    """The buggy file's lines the fix replaces or deletes (stripped, non-blank); for a pure
    insertion, the lines on either side of it (a block begun at either can take the new
    lines: `if args is None: return url` before `parsed_url = urlparse(url)`)."""
    a, b = buggy.splitlines(), fixed.splitlines()
    out = []
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            out += [line.strip() for line in a[i1:i2] if line.strip()]
        elif tag == "insert":
            out += [a[i].strip() for i in (i1 - 1, i1) if 0 <= i < len(a)]
    return [line for line in out if line]


def typed_repair(repo):
    """What the fix templates (tried before any model call) did: the output of
    the run's `fix_templates` tool call, or None when no template applied."""
    runs = repo / ".sdd" / "runs"
    for f in sorted(runs.glob("*.transcript.jsonl")) if runs.is_dir() else []:
        for line in f.read_text(errors="replace").splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("type") == "tool_call" and e.get("name") == "fix_templates":
                return {"tried": (e.get("arguments") or {}).get("tried", 0),
                        "passed": str(e.get("output", "")).startswith("passed:"),
                        "output": e.get("output", "")}
    return None


def audit_task(t, repo, kotef, base_url, count, run_bounded, judge=None):
    """Runs kotef on one task copy against the stub and measures its first repair prompt,
    and what the fix templates did (judged by the bench when one passed: the stub model
    writes nothing, so a pass is the templates' alone)."""
    import os
    env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-stub")
    cmd = [kotef, "run", "--repo", str(repo), "--goal", t["goal"], "--test-command",
           t["test_command"], "--model", "openai:stub", "--time-budget-s", "120", "--json"]
    run_bounded(cmd, repo, 240, env)
    files = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout
    row = {"task": t["name"], "files": len(files.splitlines()), "held_out": t.get("held_out")}
    typed = typed_repair(repo)
    row["typed_tried"] = typed["tried"] if typed else 0
    row["typed_passed"] = bool(typed and typed["passed"])
    row["typed_judged"] = bool(row["typed_passed"] and judge and judge(t, repo))
    prompt = first_repair_prompt(repo)
    if prompt is None:
        row.update(tokens=None, shown=[], fix_file_shown=False, fix_lines_shown=0, fix_lines=0)
        return row
    section = prompt.split("\n# Files\n", 1)[1].split("\n# How the tests fail now", 1)[0]
    sol = t["dir"] / "solution"
    fixed = [p.relative_to(sol).as_posix() for p in sol.rglob("*") if p.is_file()]
    fixed = [p for p in fixed if p.endswith(".py")]
    shown = sorted({m.group(1) for m in re.finditer(
        r"(?:^|\n)([\w./-]+\.\w+)(?:\n| \(| has \d+ lines| lines \d+)", section)})
    lines = []
    for p in fixed:
        buggy = (repo / p).read_text(errors="replace") if (repo / p).is_file() else ""
        lines += changed_lines(buggy, (sol / p).read_text(errors="replace"))
    offered = offered_statements(repo)
    hit = next((i + 1 for i, stmt in enumerate(offered)
                if any(line.strip() in lines for line in stmt.splitlines() if line.strip())),
               None)
    row.update(offered=len(offered), fix_offered_at=hit)
    row.update(tokens=count(prompt), section_tokens=count(section), shown=shown,
               fix_file_shown=any(p in shown for p in fixed),
               fix_lines=len(lines), fix_lines_shown=sum(1 for line in lines if line in section))
    return row


def print_audit(rows, counter_name):
    print(f"\n## first repair prompt per task (tokens by {counter_name})\n")
    print("| task | held out | files in repo | prompt tokens | files section | files shown | "
          "fix file shown | fix lines shown | statements offered | a fixed line offered at | "
          "templates tried | a template passed (judged) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['task']} | {'yes' if r['held_out'] else ''} | {r['files']} | "
              f"{r['tokens'] if r['tokens'] is not None else '-'} | "
              f"{r.get('section_tokens', '-')} | {len(r['shown'])} | "
              f"{'yes' if r['fix_file_shown'] else 'no'} | {r['fix_lines_shown']}/{r['fix_lines']} | "
              f"{r.get('offered', 0)} | {r.get('fix_offered_at') or '-'} | "
              f"{r.get('typed_tried', 0)} | "
              f"{('yes' if r.get('typed_judged') else 'no') if r.get('typed_passed') else '-'} |")
    for label, group in (("all", rows), ("held out", [r for r in rows if r["held_out"]])):
        sized = [r["tokens"] for r in group if r["tokens"] is not None]
        if not group:
            continue
        print(f"\n{label}: {len(group)} tasks; repair prompt in {len(sized)}; "
              f"median prompt {statistics.median(sized) if sized else '-'} tokens "
              f"(max {max(sized) if sized else '-'}); fix file shown in "
              f"{sum(r['fix_file_shown'] for r in group)}; every fixed line shown in "
              f"{sum(1 for r in group if r['fix_lines'] and r['fix_lines_shown'] == r['fix_lines'])}; "
              f"a fixed line offered to a line attempt in "
              f"{sum(1 for r in group if r.get('fix_offered_at'))}; templates tried in "
              f"{sum(1 for r in group if r.get('typed_tried'))}, passed in "
              f"{sum(1 for r in group if r.get('typed_passed'))}, judged fixed in "
              f"{sum(1 for r in group if r.get('typed_judged'))}")
    by_size = sorted((r["files"], r["tokens"]) for r in rows if r["tokens"] is not None)
    if by_size:
        print("\nprompt tokens against file count (files: tokens): "
              + ", ".join(f"{f}: {tk}" for f, tk in by_size))


def run_audit(tasks, args, fresh_repo, run_bounded, parent, judge=None):
    srv, url = stub_server()
    count, name = token_counter(args.base_url)
    rows = []
    try:
        for t in tasks:
            repo = fresh_repo(t, parent / "openings")
            rows.append(audit_task(t, repo, args.kotef, url, count, run_bounded, judge))
            print(f"real-bench openings: {t['name']}: {rows[-1].get('tokens')} tokens",
                  file=__import__("sys").stderr, flush=True)
    finally:
        srv.shutdown()
    print_audit(rows, name)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return rows
