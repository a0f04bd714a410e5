#!/usr/bin/env python3
"""Compares two tune_* sweeps of the same problems: typically one on a single device and one
under MPI on several (tune_all --shapes, then mpirun -n R tune_all --shapes).

Per problem (transposes and shape) it reports whether both runs are complete, whether they
verified the same configurations, and whether they chose the same winner (the BEST
configuration, or the default where it was kept). A run's margin is how far its winner was ahead
of its fastest other finalist in its own interleaved re-measurement (the figures its decision
came from). Different winners differ clearly where both runs' margins exceed --clear (default
10%): each run was sure, and they disagree. Otherwise one run's choice was within its own noise.

Exit status: 0 when every problem of each run is in the other, complete, and no winner differs
clearly; 1 otherwise (or when a file cannot be read).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from tune_results import ResultsError, ResultsFile, Run, load_results  # noqa: E402


def _key(run: Run, results: ResultsFile) -> str:
    """The problem and the device that measured it (an MPI sweep over several device models
    measures each problem once per model; a one-device file names its device once)."""
    return f"{run.transposes} {run.size()} on {(run.device or results.device)['name']}"


def _winner(run: Run) -> str | None:
    d = run.decision
    if d is None:
        return None
    return d.best_configuration if d.verdict == "best" else d.default_configuration


def margin(run: Run) -> float | None:
    """How far the run's winner was ahead of its fastest other finalist, re-measured interleaved
    (0.25: 25% faster); None without two finalists."""
    winner = _winner(run)
    mine = [f for f in run.finalists if f.configuration == winner]
    others = [f for f in run.finalists if f.configuration != winner]
    if not mine or not others:
        return None
    return min(f.median_seconds for f in others) / mine[0].median_seconds - 1.0


def compare(first: ResultsFile, second: ResultsFile, clear: float) -> tuple[dict, list[str]]:
    a = {_key(r, first): r for r in first.runs}
    b = {_key(r, second): r for r in second.runs}
    lines: list[str] = []
    summary = {"problems": len(a), "missing": [], "incomplete": [], "same_verified": 0, "same_winner": 0,
               "winners_differ_within_noise": [], "winners_differ_clearly": []}
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            summary["missing"].append(key)
            lines.append(f"{key}: only in the {'first' if key in a else 'second'} run")
            continue
        x, y = a[key], b[key]
        if x.partial or y.partial or x.decision is None or y.decision is None:
            summary["incomplete"].append(key)
            lines.append(f"{key}: not complete in both runs")
            continue
        verified = [{r.configuration for r in run.results if r.kind == "config" and r.status == "ok"} for run in (x, y)]
        summary["same_verified"] += verified[0] == verified[1]
        wx, wy = _winner(x), _winner(y)
        if wx == wy:
            summary["same_winner"] += 1
            continue
        margins = [margin(x), margin(y)]
        entry = {"problem": key, "first": wx, "second": wy, "margins": margins}
        sure = all(m is not None and m > clear for m in margins)
        verdict = "winners_differ_clearly" if sure else "winners_differ_within_noise"
        summary[verdict].append(entry)
        shown = " and ".join("none" if m is None else f"{m * 100:+.1f}%" for m in margins)
        lines.append(f"{key}: winners differ ({'both runs sure' if sure else 'within a run' + chr(39) + 's noise'}; "
                     f"margins {shown}): {wx} / {wy}")
    return summary, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path, help="a tune_* --json file (e.g. one device)")
    parser.add_argument("second", type=Path, help="a tune_* --json file of the same problems (e.g. MPI ranks)")
    parser.add_argument("--clear", type=float, default=0.10,
                        help="the margin (winner over the next finalist, in each run) above which both runs were "
                             "sure of their winners (0.10: 10%%)")
    parser.add_argument("--seconds", type=float, nargs=2, metavar=("FIRST", "SECOND"),
                        help="the runs' wall-clock times, for the summary")
    parser.add_argument("--json", type=Path, help="write both runs and the comparison here")
    args = parser.parse_args(argv)
    try:
        first, second = load_results(args.first), load_results(args.second)
    except ResultsError as e:
        print(f"compare_sweeps: error: {e}", file=sys.stderr)
        return 1
    summary, lines = compare(first, second, args.clear)
    for line in lines:
        print(f"compare_sweeps: {line}")
    print(f"compare_sweeps: {summary['problems']} problems: same winner at {summary['same_winner']}, "
          f"winners differ within the noise at {len(summary['winners_differ_within_noise'])}, clearly at "
          f"{len(summary['winners_differ_clearly'])}; the same configurations verified at {summary['same_verified']}; "
          f"{len(summary['missing'])} missing, {len(summary['incomplete'])} incomplete")
    if args.seconds:
        summary["seconds"] = {"first": args.seconds[0], "second": args.seconds[1],
                              "ratio": args.seconds[1] / args.seconds[0]}
        print(f"compare_sweeps: {args.seconds[1]:.0f} s against {args.seconds[0]:.0f} s: "
              f"{args.seconds[1] / args.seconds[0]:.3f}x")
    if args.json:
        document = {"comparison": summary, "first": json.loads(args.first.read_text()),
                    "second": json.loads(args.second.read_text())}
        try:
            write_text_atomically(args.json, json.dumps(document, indent=1) + "\n")
        except (OSError, FileWriteError) as e:
            print(f"compare_sweeps: error: {e}", file=sys.stderr)
            return 1
    ok = not summary["missing"] and not summary["incomplete"] and not summary["winners_differ_clearly"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
