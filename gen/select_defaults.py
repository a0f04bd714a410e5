#!/usr/bin/env python3
"""Updates configs/defaults/<target>.json from tune_* results: the shape database that
tessera::blas::gemm consults (include/tessera/blas/gemm_defaults.hpp gives the selection rule;
the build renders the file with gen/defaults_table.py).

For each tuned shape (device, element type, transposes, m, n, k, batch) the file holds the
configurations that beat tessera's current default at that shape in the same run, within a few
percent (--within, 3%) of the fastest of them:
  * first, the one of them that is within reach at the most tuned shapes of the device (so that
    a few configurations serve the whole suite, and an untuned shape between two tuned ones is
    served by a configuration good at both);
  * then the shape's own fastest, when it is another (a runner-up the lookup takes where the
    first does not fit the device).

No regression: a configuration is written only when a run proved it faster than the default it
replaces. After the search, tune_* measures the finalists (the best few and the default) again,
interleaved; a finalist qualifies only when its median beats the default's by more than the
spread of the measurements (checked here from the recorded figures; a BEST decision the figures
do not support is an error), and not when it lost to the default in another run of the same
shape. A shape where none qualifies keeps the entries the file has for it, or (none) gets the
default that held there, so that the nearest-shape rule does not hand a tuned shape a neighbour's
configuration that no run proved at it. Runs of several devices (an MPI sweep: each run names the
device that measured it in measured_by) go to each device's entries. Runs that were
stopped (partial), written by an older tune_* without the finalists' re-measurement, or tuned
with a fused epilogue are not used, and the script says so. Entries of the file for other
shapes, devices, and the problem-class entries written before the shape database, are kept.

--measured RUNS: runs of a tuner built with the database's configurations alone
(gen/database_tuning_set.py, no --budget; scripts/gpu-run.sh selection-matrix): each tuned shape
they timed gets one entry of role "measured" per configuration timed there, with its GFLOP/s (its
earlier measured entries replaced). The selection rule's measured step weighs them at untuned
shapes; shapes of the runs that have no tuned entry are left out, unless an --evidence file names
them: shapes measured for evidence (configs/shapes/coverage.json) that fill the space between the
tuned ones. With --measured the positional runs may be left out: the file's
tuned entries are then kept as they are and only measured entries are written.

--added RUNS: runs that timed configurations new to the database beside some it measured at the
same shapes (a few references per shape, not the whole set: far fewer timings than --measured's).
At each shape where the database has measured entries, each configuration it lacks gets one,
with the run's GFLOP/s scaled by the median ratio of the database's figures to the run's over the
configurations both timed (at least 3; the machines of two runs differ by a few percent), so that
it is weighed against the others as if timed with them. The shape's other entries stay as they
are; a shape with fewer common configurations is left, and so is one where their ratios disagree
(the middle half more than 12% of the median apart: the database's figures there came from an
older build); the script says so.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from defaults_table import DefaultsError, check_entry  # noqa: E402
from tune_results import ResultsError, ResultsFile, Run, beats, load_results  # noqa: E402
import gemm_params  # noqa: E402

ELEMENT_BYTES = {"float": 4, "double": 8}
ADDED_MIN_COMMON = 3  # configurations timed by both a run of --added and the database, to scale it by
# Their ratios (the database's figure over the run's) must agree: an interquartile range above this
# fraction of the median says the two measured different kernels (the database's figures at a shape
# written by an older build), so no one scale carries the run's figures over (512^3 NN: the middle
# half 1.04-1.57).
ADDED_MAX_SPREAD = 0.12


def _element_bytes(results: ResultsFile) -> int:
    """The defaults table's element size: of A and B (2 for 16-bit operands)."""
    return 2 if results.precision in ("fp16", "bf16") else ELEMENT_BYTES.get(results.element_type, 0)


def _table_precision(precision: str) -> str:
    """The defaults table's name of a tuned precision ("default": exact FP32 or FP64)."""
    return "default" if precision == "fp32" else precision


def _entry_key(entry: dict) -> tuple:
    shape = entry.get("shape") or {}
    key = (entry.get("level"), entry.get("match"), entry.get("element_bytes"), entry.get("transposes"),
           entry.get("problem") if not shape else "", shape.get("m", 0), shape.get("n", 0), shape.get("k", 0),
           shape.get("batch", 0), entry.get("precision", "default"))
    return key + ("measured", entry.get("configuration")) if entry.get("role") == "measured" else key


def as_written_today(configuration: str) -> str:
    """A recorded configuration in the text form the tuner writes today (every parameter of its
    family): an entry or sweep recorded before a parameter existed (pretranspose, k_groups) names
    the same configuration without it. A key the table no longer has (a dropped experiment's)
    leaves the text as recorded: nothing written today can equal it."""
    try:
        return gemm_params.GemmConfig.from_text(configuration).text()
    except ValueError:
        return configuration


def _add_beside_measured(entries: dict, added_files: list[ResultsFile], notes: list[str]) -> None:
    """Adds a measured entry for each configuration of the added runs that the database did not
    measure at the run's shape, its GFLOP/s scaled onto the database's figures there (the median
    ratio over the configurations both timed)."""
    # Each shape's measured figures by configuration, read once (some thousand entries).
    measured_at: dict[tuple, dict[str, float]] = {}
    for key, e in entries.items():
        if e.get("role") == "measured":
            measured_at.setdefault(key[:10], {})[as_written_today(e["configuration"])] = e["gflops"]
    for results in added_files:
        for run in results.runs:
            where = f"{results.path.name} {run.transposes} {run.size()}"
            prefix = _table_key(results, run)
            if run.partial:
                notes.append(f"{where}: not added: the run was stopped before it was complete")
                continue
            stored = measured_at.get(prefix, {})
            if not stored:
                notes.append(f"{where}: not added: the database measured nothing there")
                continue
            timed = {as_written_today(c): (c, g) for c, g in run.timed_configurations().items()}
            common = [c for c in timed if c in stored]
            if len(common) < ADDED_MIN_COMMON:
                notes.append(f"{where}: not added: {len(common)} configurations timed by both the run and the "
                             f"database, at least {ADDED_MIN_COMMON} needed to scale the run onto the database")
                continue
            ratios = [stored[c] / timed[c][1] for c in common]
            scale = statistics.median(ratios)
            low, _, high = statistics.quantiles(ratios, n=4, method="inclusive")
            if (high - low) / scale > ADDED_MAX_SPREAD:
                notes.append(f"{where}: not added: the {len(common)} configurations timed by both the run and the "
                             f"database disagree on the scale (the middle half of their ratios {low:.3f}-{high:.3f}, "
                             f"more than {ADDED_MAX_SPREAD:.0%} of the median {scale:.3f} apart)")
                continue
            device = run.device or results.device
            added = [c for c in timed if c not in stored]
            for today in added:
                configuration, gflops = timed[today]
                entry = _shape_entry(results, run, configuration, gflops * scale, "", [])
                entry["role"] = "measured"
                entry["origin"] = (f"measured {results.date[:10]} on {device['name']} at {run.size()} beside "
                                   f"{len(common)} configurations the database measured there, its figure scaled "
                                   f"by {scale:.3f} (their median ratio)")
                entries[prefix + ("measured", configuration)] = entry
                stored[today] = entry["gflops"]
            notes.append(f"{where}: {len(added)} configurations added, scaled by {scale:.3f}")


def _runner_up_key(key: tuple) -> tuple:
    """The key of a tuned shape's second entry (its runner-up), which shares the first one's _entry_key."""
    return key + ("runner-up",)


def _add_measurements(entries: dict, measured_files: list[ResultsFile], notes: list[str],
                      evidence: set[tuple] = frozenset()) -> None:
    """Replaces the measured entries of each tuned shape that the measured files timed: one per
    configuration timed there (verified), with its GFLOP/s. Shapes without a tuned entry are left
    out (a held-out shape's timings must not become the rule's evidence), except those in evidence:
    (m, n, k, batch, transposes) of shapes measured for evidence alone."""
    tuned = {key[:10] for key, e in entries.items() if e.get("shape") and e.get("role", "tuned") == "tuned"}
    replaced: set[tuple] = set()
    for results in measured_files:
        for run in results.runs:
            where = f"{results.path.name} {run.transposes} {run.size()}"
            device = run.device or results.device
            prefix = _table_key(results, run)
            if run.partial:
                notes.append(f"{where}: measurements not used: the run was stopped before it was complete")
                continue
            if prefix not in tuned and (run.m, run.n, run.k, run.batch, run.transposes) not in evidence:
                continue  # an untuned shape of the matrix (held out): evidence for no tuned entry
            timed = run.timed_configurations()
            if not timed:
                notes.append(f"{where}: measurements not used: no verified configuration")
                continue
            if prefix not in replaced:
                for key in [key for key, e in entries.items() if e.get("role") == "measured" and key[:10] == prefix]:
                    del entries[key]
                replaced.add(prefix)
            for configuration, gflops in timed.items():
                entry = _shape_entry(results, run, configuration, gflops, "", [])
                entry["role"] = "measured"
                entry["origin"] = (f"measured {results.date[:10]} on {device['name']} at {run.size()}: "
                                   f"one of {len(timed)} configurations timed there")
                entries[prefix + ("measured", configuration)] = entry
            notes.append(f"{where}: {len(timed)} configurations measured")


def _table_key(results: ResultsFile, run: Run) -> tuple:
    """The _entry_key of run's shape's (first) tuned entry."""
    device = run.device or results.device
    return ("name", device["name"], _element_bytes(results), run.transposes, "", run.m, run.n, run.k, run.batch,
            _table_precision(results.precision))


def shape_key(results: ResultsFile, run: Run) -> tuple:
    """A tuned shape as the database groups runs: device, element type, precision, transposes, sizes."""
    return ((run.device or results.device)["name"], results.element_type, results.precision, run.transposes,
            run.m, run.n, run.k, run.batch)


def _check_decision(run: Run, where: str) -> None:
    """Raises ResultsError when the recorded BEST does not follow from the recorded figures."""
    decision = run.decision
    if decision is None or decision.verdict != "best" or decision.best_configuration is None:
        return
    best = run.finalist(decision.best_configuration, "config")
    if best is None:
        raise ResultsError(f"{where}: decision.best_configuration {decision.best_configuration!r} is not a finalist")
    default = (run.finalist(decision.default_configuration, "default")
               if decision.default_configuration is not None else None)
    if default is not None and not beats(best, default):
        raise ResultsError(f"{where}: BEST {best.configuration!r} does not beat the default by more than the spread "
                           f"({best.median_seconds:.4g} s against {default.median_seconds:.4g} s)")


def _qualified(run: Run, within: float) -> dict[str, float]:
    """The finalists that beat the run's default by more than the spread and are within `within`
    of the fastest of those: configuration -> fraction of that fastest (1.0 for it)."""
    default = next((f for f in run.finalists if f.kind == "default"), None)
    beating = [f for f in run.finalists if f.kind == "config" and (default is None or beats(f, default))]
    if not beating:
        return {}
    fastest = min(f.median_seconds for f in beating)
    return {f.configuration: fastest / f.median_seconds for f in beating
            if f.median_seconds <= fastest * (1.0 + within)}


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


def _entry(configuration: str, role: str, runs: list[tuple[ResultsFile, Run]]) -> dict:
    """The defaults entry for configuration at the runs' shape, described by its fastest run."""
    def finalist(run: Run):
        return run.finalist(configuration, "config")

    def searched(run: Run) -> float:
        return next((r.median_gflops for r in run.ranked_configs() if r.name == configuration), 0.0)

    results, run = max(((res, run) for res, run in runs if finalist(run)), key=lambda rr: searched(rr[1]))
    mine = finalist(run)
    gflops = searched(run)
    versus = []
    default_final = next((f for f in run.finalists if f.kind == "default"), None)
    if default_final is not None:
        versus.append(f"{default_final.median_seconds / mine.median_seconds:.2f}x the default (re-measured)")
    baseline = run.best_baseline()
    if baseline:
        versus.append(f"{gflops / baseline.median_gflops:.2f}x {baseline.name}")
    return _shape_entry(results, run, configuration, gflops, role, versus)


def _shape_entry(results: ResultsFile, run: Run, configuration: str, gflops: float, role: str,
                 versus: list[str]) -> dict:
    """The defaults entry for configuration at run's shape and device: gflops measured there,
    role and versus saying why it was written."""
    device = run.device or results.device
    entry = {
        "level": "name",
        "match": device["name"],
        "element_bytes": _element_bytes(results),
        "transposes": run.transposes,
        "problem": run.problem_class,
        "shape": {"m": run.m, "n": run.n, "k": run.k, "batch": run.batch},
        "precision": _table_precision(results.precision),
        "configuration": configuration,
        "gflops": round(gflops, 1),
        "origin": (f"tuned {results.date[:10]} on {device['name']} at {run.size()}: {role}, "
                   f"{gflops:.0f} GFLOP/s" + "".join(", " + v for v in versus)),
    }
    if device.get("architecture"):
        entry["architecture"] = device["architecture"]
    return entry


def _default_entry(runs: list[tuple[ResultsFile, Run]]) -> dict | None:
    """The defaults entry for the default configuration of the runs at their shape (where every
    run's default was the same configuration), described by its fastest run."""
    defaults = {run.decision.default_configuration for _, run in runs}
    if len(defaults) != 1 or None in defaults:
        return None
    [configuration] = defaults
    measured = [(res, run, run.default_result()) for res, run in runs if run.default_result() is not None]
    if not measured:
        return None
    results, run, default = max(measured, key=lambda m: m[2].median_gflops)
    baseline = run.best_baseline()
    versus = [f"{default.median_gflops / baseline.median_gflops:.2f}x {baseline.name}"] if baseline else []
    return _shape_entry(results, run, configuration, default.median_gflops,
                        "the default held (no configuration beat it)", versus)


def select(results_files: list[ResultsFile], target: str, existing: dict | None = None,
           within: float = 0.03, measured_files: list[ResultsFile] | None = None,
           evidence: set[tuple] = frozenset(),
           added_files: list[ResultsFile] | None = None) -> tuple[dict, list[str]]:
    """The new defaults document and, for each tuned shape (and each run not used), a line
    saying what was decided and why. measured_files: runs that timed the database's
    configurations at tuned shapes (a tuner built with database_tuning_set.py's set, no budget),
    and at the evidence shapes ((m, n, k, batch, transposes): measured, tuned or not). added_files:
    runs that timed configurations new to the database beside some it measured (--added)."""
    notes: list[str] = []
    groups: dict[tuple, list[tuple[ResultsFile, Run]]] = {}
    for results in results_files:
        for run in results.runs:
            where = f"{results.path.name} {run.transposes} {run.size()}"
            if run.partial:
                notes.append(f"{where}: not used: the run was stopped before it was complete"
                             + (f" ({results.stopped_by})" if results.stopped_by else ""))
            elif run.decision is None:
                notes.append(f"{where}: not used: no finalists' re-measurement (written by an older tune_*)")
            elif not run.ranked_configs():
                notes.append(f"{where}: not used: no verified configuration")
            else:
                _check_decision(run, f"{results.path}: {run.transposes} {run.size()}")
                groups.setdefault(shape_key(results, run), []).append((results, run))

    # Per shape: the configurations that qualified in some run and lost to the default in none.
    qualified: dict[tuple, dict[str, float]] = {}
    for key, runs in groups.items():
        fractions: dict[str, float] = {}
        for _, run in runs:
            for configuration, fraction in _qualified(run, within).items():
                fractions[configuration] = max(fraction, fractions.get(configuration, 0.0))
        qualified[key] = {c: f for c, f in fractions.items() if not any(_lost_to_default(c, run) for _, run in runs)}
    # How many shapes of the device, element type and precision each configuration serves within reach.
    reach: dict[tuple, dict[str, int]] = {}
    for key, fractions in qualified.items():
        counts = reach.setdefault(key[:3], {})
        for configuration in fractions:
            counts[configuration] = counts.get(configuration, 0) + 1

    entries: dict[tuple, dict] = {}
    for e in (existing or {}).get("entries", []):
        key = _entry_key(e)
        # A tuned shape's second entry (its runner-up) shares the first one's key: keep both, in order.
        entries[_runner_up_key(key) if key in entries else key] = e
    for key in sorted(groups):
        runs = groups[key]
        device, _, precision, transposes = key[:4]
        results, first_run = runs[0]
        what = f"{device} {transposes} {first_run.size()}" + (f" {precision}" if precision != "fp32" else "")
        shape_prefix = _table_key(results, first_run)
        shape_keys = (shape_prefix, _runner_up_key(shape_prefix))
        old = [e for entry_key, e in entries.items() if entry_key in shape_keys]
        fractions = qualified[key]
        if not fractions:
            reasons = "; ".join(f"{run.size()}: {run.decision.reason}" for _, run in runs if run.decision.verdict != "best")
            lost = [c for _, run in runs for c in _qualified(run, within) if c not in fractions]
            if lost:
                reasons += ("; " if reasons else "") + f"{', '.join(sorted(set(lost)))} lost to the default in another run"
            held = None if old else _default_entry(runs)
            if held is not None:
                # The default held here: it becomes the shape's entry, or the nearest-shape rule would
                # send this tuned shape to a neighbour's configuration that no run proved here.
                entries[shape_prefix] = held
            kept = (f"kept {old[0]['configuration']}" if old
                    else f"wrote the default {held['configuration']}" if held is not None else "no entry")
            notes.append(f"{what}: {kept}: no configuration beat the default ({reasons})")
            continue
        counts = reach[key[:3]]
        shared = max(fractions, key=lambda c: (counts[c], fractions[c], c))
        fastest = max(fractions, key=lambda c: (fractions[c], c))
        written = [_entry(shared, f"serves {counts[shared]} tuned shape(s), {fractions[shared]:.3f} of this one's best", runs)]
        if fastest != shared:
            written.append(_entry(fastest, "runner-up: this shape's fastest", runs))
        for entry_key in [entry_key for entry_key in entries if entry_key in shape_keys]:
            del entries[entry_key]
        # Entries of one shape share a key: the list keeps their order (the shared one first).
        entries[shape_prefix] = written[0]
        if len(written) > 1:
            entries[_runner_up_key(shape_prefix)] = written[1]
        previous = [e["configuration"] for e in old]
        if previous == [e["configuration"] for e in written][:len(previous)] and previous:
            notes.append(f"{what}: kept {shared}: it beat the default again ({written[0]['origin']})")
        else:
            notes.append(f"{what}: wrote {', then '.join(e['configuration'] for e in written)}"
                         + (f" in place of {', '.join(previous)}" if previous else "")
                         + f": it beat the default ({written[0]['origin']})")
    if measured_files:
        _add_measurements(entries, measured_files, notes, evidence)
    if added_files:
        _add_beside_measured(entries, added_files, notes)
    sources = sorted({*((existing or {}).get("sources", [])),
                      *(r.path.name for r in [*results_files, *(measured_files or []), *(added_files or [])])})
    document = {"target": target, "generated_by": "gen/select_defaults.py", "sources": sources,
                "entries": [entries[k] for k in sorted(entries, key=lambda k: tuple(str(x) for x in k))]}
    return document, notes


def read_evidence_shapes(path: Path) -> set[tuple]:
    """(m, n, k, batch, transposes) of each shape of a shape file (configs/shapes/'s form)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: the evidence shape file cannot be read: {e}") from None
    shapes = document.get("shapes") if isinstance(document, dict) else None
    if not isinstance(shapes, list) or not shapes:
        raise ResultsError(f"{path}: $.shapes: expected a list of shapes (is this a shape file?)")
    keys: set[tuple] = set()
    for i, shape in enumerate(shapes):
        where = f"{path}: $.shapes[{i}]"
        if not isinstance(shape, dict):
            raise ResultsError(f"{where}: expected an object")
        sizes = [shape.get(name, 1 if name == "batch" else None) for name in ("m", "n", "k", "batch")]
        if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in sizes):
            raise ResultsError(f"{where}: m, n, k (and batch): expected positive integers")
        transposes = shape.get("transposes", "nn")
        if transposes not in ("nn", "nt", "tn", "tt"):
            raise ResultsError(f"{where}.transposes: expected nn, nt, tn or tt, got {transposes!r}")
        keys.add((*sizes, transposes))
    return keys


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


def database_text(document: dict) -> str:
    """The defaults file's text: its fields indented, each entry on a line of its own. The H200's
    database holds some 20000 entries; indented field by field it took 16 MB, a quarter of what the
    GPU machine takes along with the working tree (../shared/gpu/README.md), and one line an entry
    still diffs entry by entry."""
    fields = []
    for key, value in document.items():
        if key == "entries":
            lines = ",\n".join("    " + json.dumps(entry, separators=(",", ":")) for entry in value)
            fields.append(f'  "entries": [\n{lines}\n  ]' if value else '  "entries": []')
        else:
            fields.append(f"  {json.dumps(key)}: " + json.dumps(value, indent=2).replace("\n", "\n  "))
    return "{\n" + ",\n".join(fields) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, nargs="*",
                        help="JSON written by tune_* --json (may be left out with --measured: measured entries only)")
    parser.add_argument("--target", required=True, help="name of the defaults file, e.g. nvidia_gpu")
    parser.add_argument("--output_dir", type=Path, default=Path(__file__).resolve().parent.parent / "configs" / "defaults")
    parser.add_argument("--measured", type=Path, nargs="+", default=[],
                        help="tune_* --json runs of the database's configurations alone (gen/database_tuning_set.py): "
                             "each tuned shape they timed gets its measured entries, the selection rule's evidence")
    parser.add_argument("--evidence", type=Path, nargs="+", default=[],
                        help="shape files (configs/shapes/coverage.json) whose shapes take --measured entries though "
                             "no entry was tuned there: evidence measured between the tuned shapes, never held-out ones")
    parser.add_argument("--added", type=Path, nargs="+", default=[],
                        help="tune_* --json runs of configurations new to the database beside some it measured at "
                             "the same shapes: each new one gets a measured entry there, scaled onto the database")
    parser.add_argument("--within", type=float, default=0.03,
                        help="how far below a shape's best a configuration may be and still be written (0.03: 3%%)")
    args = parser.parse_args(argv)
    if not args.target or "/" in args.target or args.target.startswith("."):
        print(f"select_defaults: error: --target {args.target!r}: a plain file name is expected", file=sys.stderr)
        return 1
    out = args.output_dir / f"{args.target}.json"
    if not args.results and not args.measured and not args.added:
        print("select_defaults: error: no runs: give tune_* --json results, or --measured or --added runs",
              file=sys.stderr)
        return 1
    if args.evidence and not args.measured:
        print("select_defaults: error: --evidence names shapes for --measured runs, and none were given",
              file=sys.stderr)
        return 1
    try:
        evidence: set[tuple] = set()
        for path in args.evidence:
            evidence |= read_evidence_shapes(path)
        loaded = [load_results(p) for p in args.results]
        measured = [load_results(p) for p in args.measured]
        added = [load_results(p) for p in args.added]
        every_file = loaded + measured + added
        for results in every_file:
            if results.epilogue is not None:
                raise ResultsError(f"{results.path}: $.epilogue is {results.epilogue!r}: tuned with a fused epilogue, "
                                   "but the defaults table holds plain-GEMM configurations (tune without --epilogue)")
        existing = _read_existing(out)
        if not 0.0 <= args.within < 1.0:
            raise ResultsError(f"--within {args.within}: expected a fraction from 0 to below 1")
        document, notes = select(loaded, args.target, existing, args.within, measured, evidence, added)
        for i, entry in enumerate(document["entries"]):
            check_entry(entry, f"{out}: $.entries[{i}]")
    except (ResultsError, DefaultsError) as e:
        print(f"select_defaults: error: {e}", file=sys.stderr)
        return 1
    for note in notes:
        print(f"select_defaults: {note}")
    if not any(run.ranked_configs() for results in every_file for run in results.runs):
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
        write_text_atomically(out, database_text(document))
    except (OSError, FileWriteError) as e:
        print(f"select_defaults: error: {e}", file=sys.stderr)
        return 1
    print(f"select_defaults: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
