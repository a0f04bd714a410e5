#!/usr/bin/env python3
"""Picks, from a database timing run (scripts/gpu-run.sh coverage-matrix: every configuration of the
database timed at every shape of a suite), the shapes where even the fastest of those configurations
stays below a fraction of a baseline: the shapes where the database lacks a configuration, to tune
there (scripts/gpu-run.sh coverage-tune). Writes a shape file in configs/shapes/'s form, in the run's
order.

  python3 gen/weak_shapes.py MATRIX.json --baseline "cuBLAS (no TF32)" --below 0.9 \
      --description TEXT --output FILE

A shape whose run was stopped (partial) or has no verified timing of the baseline is an error: the
run cannot say whether the database serves it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_results import ResultsError, load_results  # noqa: E402


def weak_shapes(matrix: Path, baseline: str, below: float) -> list[dict]:
    """The shapes of MATRIX where the fastest configuration timed reaches less than BELOW x BASELINE."""
    results = load_results(matrix)
    shapes = []
    for run in results.runs:
        where = f"{matrix}: {run.size()} {run.transposes}"
        if run.partial:
            raise ResultsError(f"{where}: the run was stopped before every configuration was timed")
        reference = run.baseline(baseline)
        if reference is None:
            raise ResultsError(f"{where}: no verified timing of the baseline '{baseline}'")
        timed = run.timed_configurations()
        if not timed:
            raise ResultsError(f"{where}: no configuration was timed and verified")
        if max(timed.values()) < below * reference.median_gflops:
            shapes.append({"m": run.m, "n": run.n, "k": run.k, "batch": run.batch, "transposes": run.transposes})
    return shapes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("matrix", type=Path, help="tune_all JSON of the database's configurations at a suite")
    parser.add_argument("--baseline", required=True, help="the baseline row's name, e.g. 'cuBLAS (no TF32)'")
    parser.add_argument("--below", type=float, required=True, help="keep shapes whose best is below this x the baseline")
    parser.add_argument("--description", required=True, help="the file's description (say what it is for)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if not 0.0 < args.below:
        print(f"weak_shapes: error: --below {args.below}: expected a number above 0", file=sys.stderr)
        return 1
    try:
        shapes = weak_shapes(args.matrix, args.baseline, args.below)
    except ResultsError as error:
        print(f"weak_shapes: error: {error}", file=sys.stderr)
        return 1
    document = {"description": args.description, "shapes": shapes}
    args.output.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"weak_shapes: {len(shapes)} of the run's shapes below {args.below} x {args.baseline}: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
