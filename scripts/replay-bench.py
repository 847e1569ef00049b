#!/usr/bin/env python3
"""Replays the repair loop's recorded model requests against an OpenAI-compatible server and
prints how fast it answers: per request the prompt and generated tokens and their seconds
(llama.cpp's own `timings`), then the median wall time, and prompt and generation speed over
all requests. Greedy (temperature 0), so two servers given the same requests generate the
same tokens and only their speed differs: use it to compare server settings (threads, slots,
n-gram speculation) on the replies kotef really asks for.

The requests come from the transcripts a benchmark run kept (`agent-bench.py --keep DIR`):
the first N coder requests of each task.

Usage:
    python3 scripts/replay-bench.py --from DIR --base-url http://127.0.0.1:18080/v1 [--per-task 2]

For example, speculation off and on (docs/local-model.md):
    scripts/local-model.sh --stop; scripts/local-model.sh
    python3 scripts/replay-bench.py --from /tmp/run --base-url http://127.0.0.1:18080/v1
    scripts/local-model.sh --stop; KOTEF_MODEL_SPECULATE=1 scripts/local-model.sh
    python3 scripts/replay-bench.py --from /tmp/run --base-url http://127.0.0.1:18080/v1
"""

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path


def recorded_requests(root, per_task):
    """The first `per_task` coder requests of every kept transcript, as (task, messages)."""
    found = []
    for transcript in sorted(Path(root).glob("**/.sdd/runs/*.transcript.jsonl")):
        task = transcript.parents[2].name
        taken = 0
        with transcript.open(encoding="utf-8") as f:
            for line in f:
                if taken >= per_task:
                    break
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if event.get("type") == "model_request" and event.get("node") == "coder":
                    found.append((task, event["messages"]))
                    taken += 1
    return found


def ask(base_url, model, messages, max_tokens, timeout):
    body = {"model": model, "messages": messages, "max_tokens": max_tokens,
            "temperature": 0.0, "stream": False}
    request = urllib.request.Request(f"{base_url.rstrip('/')}/chat/completions",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply = json.load(response)
    return time.monotonic() - started, reply.get("timings") or {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--from", dest="root", required=True, help="a folder agent-bench.py kept")
    ap.add_argument("--base-url", required=True, help="OpenAI-compatible base URL")
    ap.add_argument("--model", default="local")
    ap.add_argument("--per-task", type=int, default=2, help="coder requests taken per task")
    ap.add_argument("--max-tokens", type=int, default=600, help="as the repair loop asks")
    ap.add_argument("--timeout", type=int, default=600, help="seconds one request may take")
    args = ap.parse_args()

    requests = recorded_requests(args.root, args.per_task)
    if not requests:
        sys.exit(f"replay-bench: no coder requests in transcripts under {args.root}")
    walls, prompt_n, prompt_ms, gen_n, gen_ms = [], 0, 0.0, 0, 0.0
    for task, messages in requests:
        wall, t = ask(args.base_url, args.model, messages, args.max_tokens, args.timeout)
        walls.append(wall)
        prompt_n += t.get("prompt_n", 0)
        prompt_ms += t.get("prompt_ms", 0.0)
        gen_n += t.get("predicted_n", 0)
        gen_ms += t.get("predicted_ms", 0.0)
        print(f"{task[:32]:32} wall {wall:5.1f} s  prompt {t.get('prompt_n', 0):4} tokens "
              f"{t.get('prompt_ms', 0) / 1000:5.1f} s  generated {t.get('predicted_n', 0):4} "
              f"tokens {t.get('predicted_ms', 0) / 1000:5.1f} s", flush=True)
    rate = lambda n, ms: n / ms * 1000 if ms else 0.0
    print(f"requests {len(walls)}: median wall {statistics.median(walls):.1f} s; "
          f"prompt {rate(prompt_n, prompt_ms):.1f} tokens/s; "
          f"generation {rate(gen_n, gen_ms):.1f} tokens/s ({gen_n} tokens)")


if __name__ == "__main__":
    main()
