#!/usr/bin/env python3
"""Updates configs/defaults/<target>.json from tune_* results: per device, transposes and problem
class, the configuration that beat tessera's current default in the same run. The build turns
these files into entries of the defaults table that tessera::blas::gemm consults
(gen/defaults_table.py).

A configuration is written only when a run named it BEST: after the search, tune_* measures the
finalists (the best few and the default) again, interleaved, and names BEST only a configuration
whose median beats the default's by more than the spread of the measurements (checked again
here from the recorded figures). Otherwise the entry already in the file is kept. Runs that were
stopped (partial), written by an older tune_* without the finalists' re-measurement, or tuned
with a fused epilogue are not used, and the script says so.

Several results files may be given (e.g. runs at 4096^3 and 8192^3, and one at 256^3 batched);
for each (device, transposes, problem class) the winners that lost to the default in none of
that class's runs are scored by how close each comes to each run's best (geometric mean), and the
best of them is written. Devices are matched by name, the most specific level of the table.
Entries of the file for other devices, transposes or classes are kept as they are.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from defaults_table import DefaultsError, check_entry  # noqa: E402
from tune_results import ResultsError, ResultsFile, Run, beats, load_results  # noqa: E402

ELEMENT_BYTES = {"float": 4, "double": 8}


def _entry_key(entry: dict) -> tuple:
    return (entry.get("level"), entry.get("match"), entry.get("element_bytes"), entry.get("transposes"),
            entry.get("problem"))


def _winner(run: Run, where: str) -> str | None:
    """The configuration the run proved faster than its default, or None. Raises ResultsError when
    the recorded decision does not follow from the recorded figures."""
    decision = run.decision
    if decision is None or decision.verdict != "best" or decision.best_configuration is None:
        return None
    best = run.finalist(decision.best_configuration, "config")
    if best is None:
        raise ResultsError(f"{where}: decision.best_configuration {decision.best_configuration!r} is not a finalist")
    default = (run.finalist(decision.default_configuration, "default")
               if decision.default_configuration is not None else None)
    if default is not None and not beats(best, default):
        raise ResultsError(f"{where}: BEST {best.configuration!r} does not beat the default by more than the spread "
                           f"({best.median_seconds:.4g} s against {default.median_seconds:.4g} s)")
    return best.configuration


def _lost_to_default(configuration: str, run: Run) -> bool:
    """Whether the run measured configuration slower than its default: in the finalists'
    re-measurement when both were finalists, else in the search."""
    default_result = run.default_result()
    if default_result is None:
        return False
    mine = run.finalist(configuration, "config")
    default = run.finalist(default_result.configuration or "", "default")
    if mine is not None and default is not None:
        return mine.median_seconds > default.median_seconds
    measured = next((r for r in run.ranked_configs() if r.name == configuration), None)
    return measured is not None and measured.median_gflops < default_result.median_gflops


def _entry(configuration: str, runs: list[tuple[ResultsFile, Run]]) -> dict:
    """The defaults entry for configuration, described by its largest run that measured it."""
    def measured(run: Run):
        return next((r for r in run.ranked_configs() if r.name == configuration), None)

    results, run = max(((res, run) for res, run in runs if measured(run)),
                       key=lambda rr: (rr[1].m * rr[1].n * rr[1].k * rr[1].batch, measured(rr[1]).median_gflops))
    winner = measured(run)
    versus = []
    default = run.default_result()
    mine = run.finalist(configuration, "config")
    default_final = run.finalist(default.configuration or "", "default") if default else None
    if mine is not None and default_final is not None:
        versus.append(f"{default_final.median_seconds / mine.median_seconds:.2f}x the default (re-measured)")
    baseline = run.best_baseline()
    if baseline:
        versus.append(f"{winner.median_gflops / baseline.median_gflops:.2f}x {baseline.name}")
    return {
        "level": "name",
        "match": results.device["name"],
        "element_bytes": ELEMENT_BYTES.get(results.element_type, 0),
        "transposes": run.transposes,
        "problem": run.problem_class,
        "configuration": configuration,
        "gflops": round(winner.median_gflops, 1),
        "origin": (f"tuned {results.date[:10]} on {results.device['name']} at {run.size()}: "
                   f"{winner.median_gflops:.0f} GFLOP/s" + "".join(", " + v for v in versus)),
    }


def select(results_files: list[ResultsFile], target: str, existing: dict | None = None) -> tuple[dict, list[str]]:
    """The new defaults document and, for each group of runs (and each run not used), a line
    saying what was decided and why."""
    notes: list[str] = []
    groups: dict[tuple, list[tuple[ResultsFile, Run]]] = {}
    for results in results_files:
        for i, run in enumerate(results.runs):
            where = f"{results.path.name} {run.transposes} {run.size()}"
            if run.partial:
                notes.append(f"{where}: not used: the run was stopped before it was complete"
                             + (f" ({results.stopped_by})" if results.stopped_by else ""))
            elif run.decision is None:
                notes.append(f"{where}: not used: no finalists' re-measurement (written by an older tune_*)")
            elif not run.ranked_configs():
                notes.append(f"{where}: not used: no verified configuration")
            else:
                key = (results.device["name"], results.element_type, run.transposes, run.problem_class)
                groups.setdefault(key, []).append((results, run))
    entries = {_entry_key(e): e for e in (existing or {}).get("entries", [])}
    for key in sorted(groups):
        runs = groups[key]
        device, element_type, transposes, problem = key
        what = f"{device} {transposes} {problem}"
        winners = []
        for results, run in runs:
            won = _winner(run, f"{results.path}: {run.transposes} {run.size()}")
            if won is not None and won not in winners:
                winners.append(won)
        eligible = [c for c in winners if not any(_lost_to_default(c, run) for _, run in runs)]
        entry_key = ("name", device, ELEMENT_BYTES.get(element_type, 0), transposes, problem)
        old = entries.get(entry_key)
        if not eligible:
            reasons = "; ".join(f"{run.size()}: {run.decision.reason}" for _, run in runs
                                if run.decision.verdict != "best")
            lost = [c for c in winners if c not in eligible]
            if lost:
                reasons += ("; " if reasons else "") + f"{', '.join(lost)} lost to the default in another run"
            kept = f"kept {old['configuration']}" if old else "no entry"
            notes.append(f"{what}: {kept}: no configuration beat the default ({reasons})")
            continue
        score = {}
        for c in eligible:
            fractions = [next(r.median_gflops for r in run.ranked_configs() if r.name == c) / run.ranked_configs()[0].median_gflops
                         for _, run in runs if any(r.name == c for r in run.ranked_configs())]
            score[c] = math.prod(fractions) ** (1.0 / len(fractions))
        chosen = min(score, key=lambda c: (-score[c], c))
        entry = _entry(chosen, runs)
        if len(runs) > 1:
            entry["origin"] += f" ({len(runs)} runs, {score[chosen]:.3f} of each run's best)"
        if old is not None and old["configuration"] == chosen:
            notes.append(f"{what}: kept {chosen}: it beat the default again ({entry['origin']})")
        else:
            notes.append(f"{what}: wrote {chosen}" + (f" in place of {old['configuration']}" if old else "")
                         + f": it beat the default ({entry['origin']})")
        entries[entry_key] = entry
    sources = sorted({*((existing or {}).get("sources", [])), *(r.path.name for r in results_files)})
    document = {"target": target, "generated_by": "gen/select_defaults.py", "sources": sources,
                "entries": [entries[k] for k in sorted(entries, key=lambda k: tuple(str(x) for x in k))]}
    return document, notes


def _read_existing(path: Path) -> dict | None:
    if not path.exists():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: the defaults file cannot be read: {e}") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise ResultsError(f"{path}: $.entries: expected a list (is this a defaults file?)")
    for i, entry in enumerate(document["entries"]):
        check_entry(entry, f"{path}: $.entries[{i}]")
    return document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="+", help="JSON written by tune_* --json")
    parser.add_argument("--target", required=True, help="name of the defaults file, e.g. nvidia_gpu")
    parser.add_argument("--output_dir", type=Path, default=Path(__file__).resolve().parent.parent / "configs" / "defaults")
    args = parser.parse_args(argv)
    if not args.target or "/" in args.target or args.target.startswith("."):
        print(f"select_defaults: error: --target {args.target!r}: a plain file name is expected", file=sys.stderr)
        return 1
    out = args.output_dir / f"{args.target}.json"
    try:
        loaded = [load_results(p) for p in args.results]
        for results in loaded:
            if results.epilogue is not None:
                raise ResultsError(f"{results.path}: $.epilogue is {results.epilogue!r}: tuned with a fused epilogue, "
                                   "but the defaults table holds plain-GEMM configurations (tune without --epilogue)")
        existing = _read_existing(out)
        document, notes = select(loaded, args.target, existing)
        for i, entry in enumerate(document["entries"]):
            check_entry(entry, f"{out}: $.entries[{i}]")
    except (ResultsError, DefaultsError) as e:
        print(f"select_defaults: error: {e}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"select_defaults: {note}")
    if not any(run.ranked_configs() for results in loaded for run in results.runs):
        print("select_defaults: error: no verified configuration in the results", file=sys.stderr)
        return 1
    if existing is not None and document["entries"] == existing.get("entries"):
        print(f"select_defaults: {out} left as it is: no entry changed")
        return 0
    if not document["entries"]:
        print(f"select_defaults: nothing to write to {out}: no configuration beat the default")
        return 0
    try:
        if not args.output_dir.is_dir():
            args.output_dir.mkdir(parents=True)
        write_text_atomically(out, json.dumps(document, indent=2) + "\n")
    except (OSError, FileWriteError) as e:
        print(f"select_defaults: error: {e}", file=sys.stderr)
        return 1
    print(f"select_defaults: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
