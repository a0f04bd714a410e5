#!/usr/bin/env python3
"""Writes configs/defaults/<target>.json from tune_* results: the best verified configuration
per device, transposes and problem class. The build turns these files into entries of the
defaults table that tessera::blas::gemm consults (gen/defaults_table.py).

Several results files may be given (e.g. runs at 4096^3 and 8192^3, and one at 256^3
batched); for each (device, transposes, problem class) the configuration that comes closest to
each run's best across that class's runs is kept. Devices are matched by name, the most
specific level of the table.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import write_text_atomically  # noqa: E402
from tune_results import ResultsError, load_results  # noqa: E402

ELEMENT_BYTES = {"float": 4, "double": 8}


def select(results_files: list, target: str) -> dict:
    # Runs grouped by what a defaults entry is for: (device, element type, transposes, class).
    groups: dict[tuple, list] = {}
    for results in results_files:
        for run in results.runs:
            if run.ranked_configs():
                key = (results.device["name"], results.element_type, run.transposes, run.problem_class)
                groups.setdefault(key, []).append((results, run))
    best = {key: _entry(runs) for key, runs in groups.items()}
    entries = [best[key] for key in sorted(best)]
    return {"target": target, "generated_by": "gen/select_defaults.py",
            "sources": sorted({r.path.name for r in results_files}), "entries": entries}


def _entry(runs: list) -> dict:
    """The configuration for one group of runs. GFLOP/s of different sizes do not compare (a
    larger problem runs faster whatever the configuration), so each configuration is scored by
    its GFLOP/s as a fraction of its run's best, combined over the runs (geometric mean), among
    the configurations verified in the most runs."""
    relative: dict[str, list[float]] = {}
    for _, run in runs:
        ranked = run.ranked_configs()
        run_best = ranked[0].median_gflops
        for r in ranked:
            relative.setdefault(r.name, []).append(r.median_gflops / run_best)
    most = max(len(v) for v in relative.values())
    score = {name: math.prod(v) ** (1.0 / len(v)) for name, v in relative.items() if len(v) == most}
    name = min(score, key=lambda n: (-score[n], n))
    # Described by its largest run that measured it.
    results, run = max(((res, run) for res, run in runs if any(r.name == name for r in run.ranked_configs())),
                       key=lambda rr: (rr[1].m * rr[1].n * rr[1].k * rr[1].batch,
                                       next(r.median_gflops for r in rr[1].ranked_configs() if r.name == name)))
    winner = next(r for r in run.ranked_configs() if r.name == name)
    baseline = run.best_baseline()
    versus = f", {winner.median_gflops / baseline.median_gflops:.2f}x {baseline.name}" if baseline else ""
    across = f" ({len(runs)} runs, {score[name]:.3f} of each run's best)" if len(runs) > 1 else ""
    return {
        "level": "name",
        "match": results.device["name"],
        "element_bytes": ELEMENT_BYTES.get(results.element_type, 0),
        "transposes": run.transposes,
        "problem": run.problem_class,
        "configuration": winner.name,
        "gflops": round(winner.median_gflops, 1),
        "origin": (f"tuned {results.date[:10]} on {results.device['name']} at "
                   f"{run.m}x{run.n}x{run.k}" + (f" batch {run.batch}" if run.batch > 1 else "") +
                   f": {winner.median_gflops:.0f} GFLOP/s{versus}{across}"),
    }


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
    write_text_atomically(out, json.dumps(document, indent=2) + "\n")
    for e in document["entries"]:
        print(f"select_defaults: {e['match']} {e['transposes']} {e['problem']}: {e['configuration']} ({e['origin']})")
    print(f"select_defaults: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
