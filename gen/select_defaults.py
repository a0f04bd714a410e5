#!/usr/bin/env python3
"""Writes configs/defaults/<target>.json from tune_* results: the best verified configuration
per device, transposes and problem class. The build turns these files into entries of the
defaults table that tessera::blas::gemm consults (gen/defaults_table.py).

Several results files may be given (e.g. one run at 4096^3 and one at 256^3 batched); for
each (device, transposes, problem class) the configuration with the best median GFLOP/s is
kept. Devices are matched by name, the most specific level of the table.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_results import ResultsError, load_results  # noqa: E402

ELEMENT_BYTES = {"float": 4, "double": 8}


def select(results_files: list, target: str) -> dict:
    best: dict[tuple, dict] = {}
    for results in results_files:
        for run in results.runs:
            ranked = run.ranked_configs()
            if not ranked:
                continue
            winner = ranked[0]
            key = (results.device["name"], results.element_type, run.transposes, run.problem_class)
            if key in best and best[key]["gflops"] >= winner.median_gflops:
                continue
            baseline = run.best_baseline()
            versus = (f", {winner.median_gflops / baseline.median_gflops:.2f}x {baseline.name}"
                      if baseline else "")
            best[key] = {
                "level": "name",
                "match": results.device["name"],
                "element_bytes": ELEMENT_BYTES.get(results.element_type, 0),
                "transposes": run.transposes,
                "problem": run.problem_class,
                "configuration": winner.name,
                "gflops": round(winner.median_gflops, 1),
                "origin": (f"tuned {results.date[:10]} on {results.device['name']} at "
                           f"{run.m}x{run.n}x{run.k}" + (f" batch {run.batch}" if run.batch > 1 else "") +
                           f": {winner.median_gflops:.0f} GFLOP/s{versus}"),
            }
    entries = [best[key] for key in sorted(best)]
    return {"target": target, "generated_by": "gen/select_defaults.py",
            "sources": sorted({r.path.name for r in results_files}), "entries": entries}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+", help="JSON written by tune_* --json")
    parser.add_argument("--target", required=True, help="name of the defaults file, e.g. nvidia_gpu")
    parser.add_argument("--output_dir", type=Path, default=Path(__file__).resolve().parent.parent / "configs" / "defaults")
    args = parser.parse_args(argv)
    try:
        loaded = [load_results(p) for p in args.results]
    except ResultsError as e:
        print(f"select_defaults: error: {e}", file=sys.stderr)
        return 1
    document = select(loaded, args.target)
    if not document["entries"]:
        print("select_defaults: error: no verified configuration in the results", file=sys.stderr)
        return 1
    args.output_dir.mkdir(parents=True, exist_ok=True)
    out = args.output_dir / f"{args.target}.json"
    fd, temp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
    os.replace(temp, out)
    for e in document["entries"]:
        print(f"select_defaults: {e['match']} {e['transposes']} {e['problem']}: {e['configuration']} ({e['origin']})")
    print(f"select_defaults: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
