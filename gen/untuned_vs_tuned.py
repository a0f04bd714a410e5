#!/usr/bin/env python3
"""Untuned shapes against their tuned neighbours, in one run of the shape-suite benchmark: issue
12's "a configuration picked for an untuned shape must be as good as for its tuned neighbours".

  python3 gen/untuned_vs_tuned.py PASS.json [PASS.json ...] --untuned SUITE [SUITE ...]
      [--baseline "cuBLAS (no TF32)"] [--json OUT]

The passes are bench_gemm_shapes --json runs of one build over the same shapes, in one session of
one device; a shape's figure is the geometric mean over the passes of tessera / baseline. The
shapes of the suites named by --untuned (a suite file's path as the run records it, or its file
name) are the untuned ones; every other shape of the run is a tuned neighbour. Reported: per
suite and for each side, the count, the geometric mean, the minimum and how many are below 0.75x
the baseline; and each untuned shape over its nearest tuned shape (by blas::shape_distance, the
defaults lookup's distance), as a geometric mean per untuned suite and over all of them. Shapes
where tessera or the baseline failed in some pass are left out and named. Files of .json.gz are
read as they are committed.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from shape_bench import ShapesError, gflops  # noqa: E402
from side_by_side import CUBLAS, FLOOR_CUBLAS, geomean, matched  # noqa: E402


def shape_distance(call: dict, tuned: dict) -> float:
    """blas::shape_distance (src/blas/gemm_defaults.cpp): log-space distance of (m, n, k / 2,
    batch), plus 1 where the transposes differ."""
    def log_ratio(key: str) -> float:
        return math.log(max(call.get(key, 1), 1)) - math.log(max(tuned.get(key, 1), 1))
    dm, dn, dk, db = log_ratio("m"), log_ratio("n"), 0.5 * log_ratio("k"), log_ratio("batch")
    return math.sqrt(dm * dm + dn * dn + dk * dk + db * db) + (0.0 if call["transposes"] == tuned["transposes"] else 1.0)


def side(ratios: list[float]) -> dict:
    return {"shapes": len(ratios), "geomean": geomean(ratios), "min": min(ratios) if ratios else None,
            f"below_{FLOOR_CUBLAS}x": sum(r < FLOOR_CUBLAS for r in ratios)}


def compare(paths: list[Path], untuned: list[str], baseline: str = CUBLAS) -> dict:
    order, runs = matched(paths)
    suites = sorted({suite for suite, _ in order})
    named = {u: [s for s in suites if s == u or Path(s).name == Path(u).name] for u in untuned}
    for u, found in named.items():
        if not found:
            raise ShapesError(f"--untuned {u}: no such suite in the run (its suites: {', '.join(suites)})")
    untuned_suites = {s for found in named.values() for s in found}
    if untuned_suites == set(suites):
        raise ShapesError("every suite of the run is named untuned: there is no tuned neighbour to compare with")
    shapes, failed = [], []
    for key in order:
        rows = [run[key] for run in runs]
        timed = [(gflops(r, "tessera"), gflops(r, baseline)) for r in rows]
        if not all(t and b for t, b in timed):
            failed.append(f"{key[1]} ({key[0]})")
            continue
        first = rows[0]
        shapes.append({"suite": key[0], "label": key[1], "untuned": key[0] in untuned_suites,
                       "m": first["m"], "n": first["n"], "k": first["k"], "batch": first.get("batch", 1),
                       "transposes": first["transposes"], "ratio": geomean([t / b for t, b in timed])})
    tuned = [s for s in shapes if not s["untuned"]]
    if not tuned:
        raise ShapesError("no tuned shape was timed in every pass")
    for s in shapes:
        if s["untuned"]:
            nearest = min(tuned, key=lambda t: shape_distance(s, t))
            s["nearest_tuned"] = nearest["label"]
            s["over_nearest_tuned"] = s["ratio"] / nearest["ratio"]
    by_suite = {}
    for suite in suites:
        rows = [s for s in shapes if s["suite"] == suite]
        by_suite[suite] = side([s["ratio"] for s in rows])
        by_suite[suite]["untuned"] = suite in untuned_suites
        if suite in untuned_suites:
            by_suite[suite]["over_nearest_tuned"] = geomean([s["over_nearest_tuned"] for s in rows])
    untuned_rows = [s for s in shapes if s["untuned"]]
    return {"passes": [str(p) for p in paths], "baseline": baseline, "suites": by_suite,
            "untuned": {**side([s["ratio"] for s in untuned_rows]),
                        "over_nearest_tuned": geomean([s["over_nearest_tuned"] for s in untuned_rows])},
            "tuned": side([s["ratio"] for s in tuned]), "failed": failed, "shapes": shapes}


def report(result: dict) -> str:
    def line(name: str, g: dict) -> str:
        if not g["shapes"]:
            return f"{name} | 0 | - | - | - | -"
        nearest = f"{g['over_nearest_tuned']:.3f}" if g.get("over_nearest_tuned") is not None else "-"
        return (f"{name} | {g['shapes']} | {g['geomean']:.3f} | {g['min']:.3f} | {g[f'below_{FLOOR_CUBLAS}x']} | "
                f"{nearest}")
    lines = [f"suite | shapes | tessera / {result['baseline']} | minimum | below {FLOOR_CUBLAS}x | "
             "untuned over nearest tuned"]
    for suite, g in result["suites"].items():
        lines.append(line(f"{suite}{' (untuned)' if g['untuned'] else ''}", g))
    lines.append(line("all untuned", result["untuned"]))
    lines.append(line("all tuned", result["tuned"]))
    if result["failed"]:
        lines.append(f"left out, a row failed in some pass: {', '.join(result['failed'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("passes", type=Path, nargs="+", help="bench_gemm_shapes --json passes of one build")
    parser.add_argument("--untuned", nargs="+", required=True, help="the suites of untuned shapes (path or file name)")
    parser.add_argument("--baseline", default=CUBLAS, help=f"the baseline row (default: {CUBLAS})")
    parser.add_argument("--json", type=Path, help="write the comparison, suite by suite and shape by shape")
    args = parser.parse_args(argv)
    try:
        result = compare(args.passes, args.untuned, args.baseline)
        print(report(result))
        if args.json:
            write_text_atomically(args.json, json.dumps(result, indent=1) + "\n")
    except (ShapesError, FileWriteError, OSError) as e:
        print(f"untuned_vs_tuned: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
