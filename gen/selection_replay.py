#!/usr/bin/env python3
"""Replays blas::gemm's choice of a configuration for shapes that were not tuned, on the
measurements of tuning sweeps (tune_* --shapes --json), without a device.

Leave one shape out: for each tuned shape of the sweeps, the defaults database is built by
select_defaults.py from the sweeps without that shape's runs; gemm_pick (the C++ selection rule,
include/tessera/blas/gemm_defaults.hpp) picks from it for the hidden shape, once by the nearest
tuned shape alone (--compute-units 0) and once with the device's compute units (the fill rule);
each pick scores what the sweeps measured of it at the hidden shape, as a fraction of the fastest
configuration measured there (per sweep, then the median over the sweeps that measured it). A
pick the sweeps never measured at that shape is counted apart ("unmeasured"), not guessed.

This is the situation of a user's shape that is in no suite: its neighbours are tuned, it is
not. It measures the rule, not the kernels: a fraction of 1.0 means the rule found the best
configuration the search had measured there.

  python3 gen/selection_replay.py SWEEP.json [...] --compute-units 132 [--json out.json] [--require 0.9]
A SWEEP is a tune_* --json file, or gen/compare_sweeps.py's document (both of its sweeps).
--require F: exit 1 unless the fill rule's picks (what blas::gemm does on the device) reach F of
the best measured, as a geometric mean over the shapes where they were measured.

With --matrix DATABASE (a defaults file with measured entries, select_defaults.py --measured),
the SWEEP is a matrix: every configuration of DATABASE timed at every shape (scripts/gpu-run.sh
selection-matrix), so that every pick was measured. Shapes of the matrix with no entry in the
database (held out, drawn at random) get their picks from the whole database; each tuned shape
from the database without that shape's entries (tuned and measured). Each pick scores its speed
there over the fastest configuration timed there, for two rules: "fill" (the database without
its measured entries: the nearest shapes' winners weighed by fill) and "measured" (the whole
database: what blas::gemm does). --require F: exit 1 unless the measured rule's picks at the
matrix's untuned shapes reach F of the best timed there (geometric mean); a matrix without
untuned shapes cannot meet it.

  python3 gen/selection_replay.py MATRIX.json --matrix DATABASE.json --compute-units 132 [--json out.json] [--require 0.88]

With --own-figures the one SWEEP is itself a defaults file with measured entries: each of its
measured shapes is left out in turn (every entry of that shape and transposes), gemm_pick picks
there from the rest, and the pick scores the file's own figures there over the fastest of them.
The call runs a pick with its own split of K (chosen_split_k, gemm_pick's "configuration"): it
scores the configuration measured split per call (split_k=0) there, which ran with that split,
else the configuration exactly as it runs. Without a device, after every change to the rule.

  python3 gen/selection_replay.py DATABASE.json --own-figures --compute-units 132 [--json out.json] [--require 0.94]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from select_defaults import ELEMENT_BYTES, as_written_today, select, shape_key  # noqa: E402
from tune_results import ResultsError, ResultsFile, Run, load_results, read_document, results_from_document  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def load_sweeps(path: Path) -> list[ResultsFile]:
    """The sweeps of a file, read once: a tune_* --json file, or both of a compare_sweeps
    document's (each named path's stem.first.json and stem.second.json)."""
    document = read_document(path)
    if isinstance(document, dict) and "first" in document and "second" in document and "runs" not in document:
        return [results_from_document(document[part], path.with_name(f"{path.stem}.{part}.json"))
                for part in ("first", "second")]
    return [results_from_document(document, path)]


def usable(run: Run) -> bool:
    return not run.partial and run.decision is not None and bool(run.ranked_configs())


def measured_fractions(sweeps: list[ResultsFile]) -> dict[tuple, dict[str, float]]:
    """Per tuned shape, each configuration measured there (search or default row): its speed as a
    fraction of the fastest one of the same sweep, the median over the sweeps that measured it."""
    samples: dict[tuple, dict[str, list[float]]] = {}
    for results in sweeps:
        for run in results.runs:
            if not usable(run):
                continue
            rows = [r for r in run.results if r.kind in ("config", "default") and r.status == "ok"
                    and r.median_gflops and r.configuration]
            fastest = max(r.median_gflops for r in rows)
            per_config = samples.setdefault(shape_key(results, run), {})
            for r in rows:
                per_config.setdefault(as_written_today(r.configuration), []).append(r.median_gflops / fastest)
    return {key: {c: statistics.median(v) for c, v in configs.items()} for key, configs in samples.items()}


def without_shape(sweeps: list[ResultsFile], key: tuple) -> list[ResultsFile]:
    return [dataclasses.replace(results, runs=tuple(r for r in results.runs if shape_key(results, r) != key))
            for results in sweeps]


def gemm_pick_rows(gemm_pick: Path, db_path: Path, suite_path: Path, name: str, device: dict, vendor: str,
                   compute_units: int, element_bytes: int) -> list[dict]:
    """gemm_pick's answer for each shape of suite_path from the database at db_path."""
    command = [str(gemm_pick), "--defaults", str(db_path), "--shapes", str(suite_path), "--device-name", name,
               "--architecture", device.get("architecture", ""), "--vendor", vendor,
               "--type", device.get("type", "gpu"), "--compute-units", str(compute_units),
               "--element-bytes", str(element_bytes)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ResultsError(f"gemm_pick failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def run_gemm_pick(gemm_pick: Path, db_path: Path, suite_path: Path, name: str, device: dict, vendor: str,
                  compute_units: int, element_bytes: int) -> list[str]:
    """gemm_pick's configuration for each shape of suite_path from the database at db_path: the
    picked entry's configuration, as the sweeps measured it. blas::gemm runs a tuned shape's pick at
    another shape with the call's split of K (gemm_pick's "configuration"); this replay scores the
    rule's choice of an entry, not the split, which no sweep timed at every count."""
    return [as_written_today((row.get("entry") or row)["configuration"])
            for row in gemm_pick_rows(gemm_pick, db_path, suite_path, name, device, vendor, compute_units,
                                      element_bytes)]


def pick(gemm_pick: Path, db_path: Path, suite_path: Path, key: tuple, device: dict, vendor: str,
         compute_units: int) -> str:
    """gemm_pick's configuration for the one shape of suite_path (that of key) from the database."""
    return run_gemm_pick(gemm_pick, db_path, suite_path, key[0], device, vendor, compute_units,
                         ELEMENT_BYTES[key[1]])[0]


def shape_label(s: dict) -> str:
    """A replayed shape's sizes and transposes, as the lines print them."""
    return f"{s['m']}x{s['n']}x{s['k']}" + (f" batch {s['batch']}" if s["batch"] > 1 else "") + f" {s['transposes']}"


def shape_line(s: dict, rules: tuple[str, ...]) -> str:
    """One replayed shape: its sizes, then each rule's fraction of the best measured there."""
    shown = "  ".join(f"{rule} {s[rule]['fraction_of_best']:.2f}" if s[rule]["fraction_of_best"] is not None
                      else f"{rule} unmeasured" for rule in rules)
    return f"{shape_label(s)}: {shown}"


def entry_shape(e: dict) -> tuple:
    """A database entry's shape as the replays key it: (transposes, m, n, k, batch)."""
    s = e["shape"]
    return e["transposes"], s["m"], s["n"], s["k"], s["batch"]


def fraction_summary(fractions: list[float | None]) -> dict:
    """The picks' fractions of the best over some shapes; None where the pick was not measured."""
    measured = [v for v in fractions if v is not None]
    return {"shapes": len(fractions), "unmeasured": len(fractions) - len(measured),
            "geometric_mean": geometric_mean(measured), "minimum": min(measured, default=float("nan")),
            "below_0_8": sum(1 for v in measured if v < 0.8)}


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def replay(sweeps: list[ResultsFile], gemm_pick: Path, vendor: str, compute_units: int,
           scratch: Path) -> dict:
    fractions = measured_fractions(sweeps)
    devices = {(run.device or results.device)["name"]: (run.device or results.device)
               for results in sweeps for run in results.runs}
    rules = {"nearest": 0, "fill": compute_units}
    shapes = []
    for key in sorted(fractions):
        if key[2] != "fp32":
            continue  # the rule's tensor-core precisions take their own path (choose_tensor_core_default)
        database, _ = select(without_shape(sweeps, key), target="replay")
        _, _, _, transposes, m, n, k, batch = key
        db_path, suite_path = scratch / "database.json", scratch / "shape.json"
        db_path.write_text(json.dumps(database))
        suite_path.write_text(json.dumps([{"m": m, "n": n, "k": k, "batch": batch, "transposes": transposes}]))
        row = {"device": key[0], "element_type": key[1], "transposes": transposes, "m": m, "n": n, "k": k,
               "batch": batch, "measured_configurations": len(fractions[key])}
        for rule, units in rules.items():
            chosen = pick(gemm_pick, db_path, suite_path, key, devices[key[0]], vendor, units)
            row[rule] = {"configuration": chosen, "fraction_of_best": fractions[key].get(chosen)}
        shapes.append(row)
    summary = {}
    for rule in rules:
        got = [s[rule]["fraction_of_best"] for s in shapes if s[rule]["fraction_of_best"] is not None]
        summary[rule] = {"measured": len(got), "unmeasured": len(shapes) - len(got),
                         "geometric_mean": geometric_mean(got), "minimum": min(got, default=float("nan")),
                         "below_0_8": sum(1 for v in got if v < 0.8)}
    both = [s for s in shapes if all(s[r]["fraction_of_best"] is not None for r in rules)]
    for rule in rules:
        values = [s[rule]["fraction_of_best"] for s in both]
        summary[rule]["where_both_measured"] = {"shapes": len(values), "geometric_mean": geometric_mean(values),
                                                "minimum": min(values, default=float("nan"))}
    return {"compute_units": compute_units, "sources": sorted({r.path.name for r in sweeps}),
            "summary": summary, "shapes": shapes}


def _picks(gemm_pick: Path, database: dict, shapes: list[tuple], device: dict, name: str, vendor: str,
           compute_units: int, scratch: Path) -> list[str]:
    """gemm_pick's configurations for shapes (transposes, m, n, k, batch) from database."""
    if not shapes:  # gemm_pick rejects an empty suite; a matrix of tuned shapes alone has no untuned ones
        return []
    db_path, suite_path = scratch / "database.json", scratch / "shapes.json"
    db_path.write_text(json.dumps(database))
    suite_path.write_text(json.dumps([{"m": m, "n": n, "k": k, "batch": b, "transposes": t} for t, m, n, k, b in shapes]))
    return run_gemm_pick(gemm_pick, db_path, suite_path, name, device, vendor, compute_units, 4)


def matrix_replay(matrix: ResultsFile, database: dict, gemm_pick: Path, vendor: str, compute_units: int,
                  scratch: Path) -> dict:
    """The fill and measured rules' picks scored on a matrix (module docstring)."""
    timed: dict[tuple, dict[str, float]] = {}
    for run in matrix.runs:
        if run.partial:
            continue
        rows = {as_written_today(r.configuration): r.median_gflops for r in run.results
                if r.kind in ("config", "default") and r.status == "ok" and r.configuration and r.median_gflops}
        if rows:
            timed[(run.transposes, run.m, run.n, run.k, run.batch)] = rows
    device = matrix.device
    name = device["name"]
    entries = [e for e in database.get("entries", []) if e.get("precision", "default") == "default"
               and e.get("element_bytes") in (0, 4)]

    def shape_of(e: dict) -> tuple | None:
        return entry_shape(e) if e.get("shape") and e.get("match") in name else None

    tuned = {shape_of(e) for e in entries if shape_of(e) is not None}
    rules = {"fill": lambda es: [e for e in es if e.get("role") != "measured"], "measured": lambda es: es}
    rows_out = []
    untuned = [key for key in timed if key not in tuned]
    picks = {rule: _picks(gemm_pick, {"entries": keep(entries)}, untuned, device, name, vendor, compute_units, scratch)
             for rule, keep in rules.items()}
    for i, key in enumerate(untuned):
        rows_out.append({"shape": key, "group": "untuned", **{rule: picks[rule][i] for rule in rules}})
    for key in sorted(k for k in timed if k in tuned):
        others = [e for e in entries if shape_of(e) != key]
        rows_out.append({"shape": key, "group": "left out", **{
            rule: _picks(gemm_pick, {"entries": keep(others)}, [key], device, name, vendor, compute_units, scratch)[0]
            for rule, keep in rules.items()}})
    shapes, summary = [], {}
    for row in rows_out:
        key = row["shape"]
        best = max(timed[key].values())
        shapes.append({"transposes": key[0], "m": key[1], "n": key[2], "k": key[3], "batch": key[4],
                       "group": row["group"], **{rule: {"configuration": row[rule],
                                                         "fraction_of_best": (timed[key][row[rule]] / best
                                                                              if row[rule] in timed[key] else None)}
                                                  for rule in rules}})
    for group in ("untuned", "left out"):
        for rule in rules:
            summary[f"{group}, {rule}"] = fraction_summary([s[rule]["fraction_of_best"] for s in shapes
                                                            if s["group"] == group])
    return {"compute_units": compute_units, "matrix": matrix.path.name, "summary": summary, "shapes": shapes}


def split_per_call(configuration: str) -> str:
    """The configuration as the database writes it when its split is chosen per call."""
    return re.sub(r"\bsplit_k=\d+", "split_k=0", configuration)


def own_figures_replay(database: dict, gemm_pick: Path, vendor: str, compute_units: int, scratch: Path) -> dict:
    """Each measured shape of database left out in turn, its pick scored by the database's own
    figures there (module docstring)."""
    entries = database["entries"]
    timed: dict[tuple, dict[str, float]] = {}
    device: dict | None = None
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            raise ResultsError(f"$.entries[{i}]: expected an object")
        if e.get("role") != "measured" or e.get("precision", "default") != "default" or e.get("element_bytes") != 4:
            continue
        try:
            timed.setdefault(entry_shape(e), {})[as_written_today(e["configuration"])] = float(e["gflops"])
            device = device or {"name": e["match"], "architecture": e.get("architecture", "")}
        except KeyError as error:
            raise ResultsError(f"$.entries[{i}]: a measured entry without {error}") from None
        except (TypeError, ValueError) as error:
            raise ResultsError(f"$.entries[{i}]: a measured entry of the wrong form: {error}") from None
    if device is None:
        raise ResultsError("no measured float entries of the default precision: nothing to leave out")

    def shape_of(e: dict) -> tuple | None:
        return entry_shape(e) if e.get("shape") and e.get("element_bytes") in (0, 4) else None

    db_path, suite_path = scratch / "database.json", scratch / "shape.json"
    shapes = []
    for key in sorted(timed):
        db_path.write_text(json.dumps({"entries": [e for e in entries if shape_of(e) != key]}))
        transposes, m, n, k, batch = key
        suite_path.write_text(json.dumps([{"m": m, "n": n, "k": k, "batch": batch, "transposes": transposes}]))
        row = gemm_pick_rows(gemm_pick, db_path, suite_path, device["name"], device, vendor, compute_units, 4)[0]
        runs = as_written_today(row["configuration"])
        figures = timed[key]
        scored = next((c for c in (split_per_call(runs), runs) if c in figures), None)
        shapes.append({"transposes": transposes, "m": m, "n": n, "k": k, "batch": batch, "configuration": runs,
                       "fraction_of_best": figures[scored] / max(figures.values()) if scored else None})
    return {"compute_units": compute_units, "shapes": shapes,
            "summary": fraction_summary([s["fraction_of_best"] for s in shapes])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweeps", type=Path, nargs="+", help="tune_* --json files or compare_sweeps documents")
    parser.add_argument("--compute-units", type=int, required=True, help="the measured device's compute units")
    parser.add_argument("--vendor", default="nvidia", help="the device key's vendor (nvidia, amd, intel, pocl)")
    parser.add_argument("--gemm-pick", type=Path, default=ROOT / "build" / "tools" / "auto_tuner" / "gemm_pick")
    parser.add_argument("--json", type=Path, help="write the replay here")
    parser.add_argument("--require", type=float,
                        help="the least geometric mean fraction of the best: of the fill rule's picks, or with "
                             "--own-figures of the measured rule's")
    parser.add_argument("--matrix", type=Path, metavar="DATABASE",
                        help="the one SWEEP is a matrix of this database's configurations (module docstring)")
    parser.add_argument("--own-figures", action="store_true",
                        help="the one SWEEP is a defaults file, scored by its own measured figures (module docstring)")
    args = parser.parse_args(argv)
    if args.compute_units < 1:
        parser.error("--compute-units: at least 1")
    if args.require is not None and not 0.0 < args.require <= 1.0:
        parser.error(f"--require: {args.require} is out of range: a fraction above 0 and at most 1")
    if not args.gemm_pick.exists():
        parser.error(f"--gemm-pick: no {args.gemm_pick} (build the target gemm_pick)")
    if args.matrix is not None and args.own_figures:
        parser.error("--matrix and --own-figures: give one")
    if args.matrix is not None:
        return _main_matrix(args)
    if args.own_figures:
        return _main_own_figures(args)
    try:
        with tempfile.TemporaryDirectory() as scratch_dir:
            scratch = Path(scratch_dir)
            sweeps = [s for path in args.sweeps for s in load_sweeps(path)]
            result = replay(sweeps, args.gemm_pick, args.vendor, args.compute_units, scratch)
    except ResultsError as e:
        print(f"selection_replay: {e}", file=sys.stderr)
        return 1
    for s in result["shapes"]:
        print(shape_line(s, ("nearest", "fill")))
    for rule, v in result["summary"].items():
        w = v["where_both_measured"]
        print(f"{rule}: {v['measured']} measured, {v['unmeasured']} unmeasured, geometric mean "
              f"{v['geometric_mean']:.3f}, minimum {v['minimum']:.2f}, {v['below_0_8']} below 0.8; "
              f"where both rules' picks were measured ({w['shapes']}): {w['geometric_mean']:.3f}, min {w['minimum']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if falls_short("the fill rule's picks", result["summary"]["fill"]["geometric_mean"], "the best measured",
                   args.require):
        return 1
    return 0


def falls_short(picks: str, reached: float, best: str, required: float | None) -> bool:
    """Whether --require was given and the picks' geometric mean (NaN where none was measured)
    falls short of it; says so on stderr."""
    if required is None or reached >= required:
        return False
    print(f"selection_replay: {picks} reach {reached:.3f} of {best}, below the required {required}", file=sys.stderr)
    return True


def _main_matrix(args: argparse.Namespace) -> int:
    if len(args.sweeps) != 1:
        print("selection_replay: --matrix: give the one matrix run", file=sys.stderr)
        return 1
    try:
        database = json.loads(args.matrix.read_text())
        if not isinstance(database, dict) or not isinstance(database.get("entries"), list):
            raise ResultsError(f"{args.matrix}: $.entries: expected a list (is this a defaults file?)")
        with tempfile.TemporaryDirectory() as scratch_dir:
            result = matrix_replay(load_results(args.sweeps[0]), database, args.gemm_pick, args.vendor,
                                   args.compute_units, Path(scratch_dir))
    except (OSError, json.JSONDecodeError, ResultsError) as e:
        print(f"selection_replay: {e}", file=sys.stderr)
        return 1
    for s in result["shapes"]:
        print(f"{s['group']:8s} " + shape_line(s, ("fill", "measured")))
    for what, v in result["summary"].items():
        print(f"{what}: {v['shapes']} shapes ({v['unmeasured']} picks unmeasured), geometric mean "
              f"{v['geometric_mean']:.3f}, minimum {v['minimum']:.2f}, {v['below_0_8']} below 0.8")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    untuned = result["summary"]["untuned, measured"]
    if args.require is not None and not untuned["shapes"]:
        print(f"selection_replay: --require {args.require}: the matrix has no untuned shape "
              "(every shape it timed has entries in the database)", file=sys.stderr)
        return 1
    if falls_short(f"the measured rule's picks at the matrix's {untuned['shapes']} untuned shapes",
                   untuned["geometric_mean"], "the best timed there", args.require):
        return 1
    return 0


def _main_own_figures(args: argparse.Namespace) -> int:
    if len(args.sweeps) != 1:
        print("selection_replay: --own-figures: give the one defaults file", file=sys.stderr)
        return 1
    try:
        database = read_document(args.sweeps[0])
        if not isinstance(database, dict) or not isinstance(database.get("entries"), list):
            raise ResultsError(f"{args.sweeps[0]}: $.entries: expected a list (is this a defaults file?)")
        with tempfile.TemporaryDirectory() as scratch_dir:
            result = own_figures_replay(database, args.gemm_pick, args.vendor, args.compute_units, Path(scratch_dir))
    except (OSError, ResultsError) as e:
        print(f"selection_replay: {e}", file=sys.stderr)
        return 1
    for s in result["shapes"]:
        fraction = s["fraction_of_best"]
        print(f"{shape_label(s)}: " + (f"{fraction:.2f}" if fraction is not None else "unmeasured"))
    v = result["summary"]
    print(f"left out: {v['shapes']} shapes ({v['unmeasured']} picks unmeasured), geometric mean "
          f"{v['geometric_mean']:.3f}, minimum {v['minimum']:.2f}, {v['below_0_8']} below 0.8")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if falls_short("the picks", v["geometric_mean"], "the best measured", args.require):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
