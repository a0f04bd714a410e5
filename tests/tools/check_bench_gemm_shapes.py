#!/usr/bin/env python3
"""Runs bench_gemm_shapes as a user does and checks its exit status and what its JSON says.

  check_bench_gemm_shapes.py --status N --rows ROW[,ROW...] --run N --of N -- BENCH ARGS

ARGS must include --json FILE (moved into a folder of this process's own by check_tuner.py's
json_path, so that two runs of the test suite at once do not read each other's file). Each shape
run must have exactly the rows named (tessera's first), tessera's verified ("ok"); N of the
suite's shapes must have run, and the JSON must say complete exactly when all did. Exits 0 when
all of this holds, 1 with the reason.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# The tuner checks' helpers: a private folder for the --json file, and a run with a time limit.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "auto_tuner"))
from check_tuner import CheckFailed, json_path, run  # noqa: E402


def check(args: argparse.Namespace) -> str | None:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    try:
        path = json_path(command)
    except CheckFailed as e:
        return str(e)
    done = run(command)
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    if done.returncode != args.status:
        return f"expected exit {args.status}; {shown}"
    doc = json.loads(path.read_text())
    shapes = doc["shapes"]
    if len(shapes) != args.run or doc["shapes_not_run"] != args.of - args.run:
        return f"expected {args.run} of {args.of} shapes run, the JSON has {len(shapes)} and {doc['shapes_not_run']} not run"
    if doc["complete"] != (args.run == args.of):
        return f"the JSON says complete: {doc['complete']} after {args.run} of {args.of} shapes"
    rows = ["tessera"] + [r for r in args.rows.split(",") if r]
    for s in shapes:
        if sorted(s["results"]) != sorted(rows):
            return f"{s['label']}: rows {sorted(s['results'])}, expected {sorted(rows)}"
        if s["results"]["tessera"]["status"] != "ok" or not s["results"]["tessera"]["gflops"] > 0:
            return f"{s['label']}: tessera's row is {s['results']['tessera']}"
    if sorted(doc["summary"]) != sorted(rows[1:] if shapes else []):
        return f"the summary names {sorted(doc['summary'])}, expected {sorted(rows[1:])}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--status", type=int, required=True)
    parser.add_argument("--rows", required=True, help="the baselines' row names, comma-separated")
    parser.add_argument("--run", type=int, required=True, help="shapes that must have run")
    parser.add_argument("--of", type=int, required=True, help="shapes in the suite")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    failure = check(parser.parse_args())
    if failure:
        print(f"check_bench_gemm_shapes: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
