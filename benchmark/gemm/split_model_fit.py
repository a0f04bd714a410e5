#!/usr/bin/env python3
"""Scores the split-K cost model of blas::chosen_split_k (include/tessera/blas/gemm_config.hpp)
against split counts measured on a device, for several constants: which count each model picks at
each measured (shape, block), and what that count ran at, over the best count measured there.

  python3 benchmark/gemm/split_model_fit.py [PROBE.json ...]

A PROBE is a tune_* --json run whose configurations differ only in split_k (the H200's probes,
the default: benchmark/results/split_probe_h200_2026-11-29.json, six shapes of a few waves;
split_probe_few_tiles_h200_2026-11-29.json, benchmark/gemm/split_probe/run.sh's twelve shapes;
split_probe_narrow_h200_2026-11-29.json, run.sh narrow_set.json narrow_shapes.json: six blocks of
64 and 128 work-items; split_probe_tall_h200_2026-11-29.json, run.sh tall_set.json tall_shapes.json:
the 128 x 32 block at counts up to 48; split_probe_mid_h200_2026-11-30.json, run.sh mid_set.json
mid_shapes.json: six blocks at counts 1 to 6 at twelve mid-size calls; split_probe_long_h200_2026-11-30.json,
run.sh long_set.json long_shapes.json: four blocks at counts up to 16 at ten long-K calls). Besides the probes, the
pairs measured by the shape-suite runs of 2026-11-29 (one configuration at two counts, one machine
each; benchmark/RESULTS.md, "Split-K chosen by a model of waves") are scored too.
The models: waves, ceil(tiles x split / (G x units)) x (ceil(k_tiles / split) + overhead), or
batches (blas::split_k_model_time, committed: holds 2, busy from 1.5, overhead 12): the busiest
unit's ceil(tiles x split / units) work-groups in batches of holds x G, the last as long as at least
busy_from x G, over G, x (ceil(k_tiles / split) + overhead). A split is taken where 5% faster than
whole, from 1 to 256 with 8 K tiles a slice or more. G is either one constant for every block, or
per block: unit_outputs over the block's outputs, at most 2048 work-items over twice its work-items
(blas::split_k_groups_per_unit). Last, the committed model with the second launch's cost
(blas::split_k_second_launch_time) at 0, 128 (committed) and 256 elements of K.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "gen"))
from gemm_params import load_param_table  # noqa: E402
from gemm_rules import compile_time_limits, load_rule_table  # noqa: E402

PARAMS = load_param_table()
RULES = load_rule_table(params=PARAMS)
UNITS = 132  # the H200's compute units
GAIN = 1.05
MIN_SLICE_K_TILES = 8

UNIT_WORK_ITEMS = 2048
UNIT_OUTPUTS = 16384  # blas::split_k_unit_outputs, committed

# (m, n, k, batch, transposes), (block rows, block cols, K tile, work-items), {split: GFLOP/s}:
# one configuration at two counts in two shape-suite runs (the earlier rule's pick and a model's).
SUITE_PAIRS = [
    ((768, 768, 4096, 1, "nt"), (128, 128, 8, 256), {7: 35569.0, 13: 28899.0}),
    ((768, 768, 3072, 1, "tn"), (128, 128, 16, 256), {7: 32781.0, 8: 26112.0}),
    ((6144, 1024, 1024, 1, "nn"), (128, 128, 16, 256), {1: 42422.0, 2: 34502.0}),
    ((2500, 1200, 700, 1, "nt"), (128, 64, 16, 128), {1: 36674.0, 2: 30191.0}),
]


def block_of(configuration: str, element_bytes: int = 4) -> tuple[int, int, int, int]:
    """(block rows, block cols, K tile, work-items) of a configuration, as gemm_rules.def derives them."""
    config = PARAMS.config_class().from_text(configuration)
    values = RULES.evaluate(config.rule_inputs(element_bytes, compile_time_limits()))
    return values["block_rows"], values["block_cols"], values["k_tile"], values["work_group_size"]


def groups_per_unit(block: tuple, model: int | tuple[str, int]) -> int:
    """A constant count, or ("outputs", unit_outputs): blas::split_k_groups_per_unit's form."""
    if isinstance(model, int):
        return model
    return max(1, min(model[1] // (block[0] * block[1]), UNIT_WORK_ITEMS // (2 * block[3])))


def probe_cases(paths: list[Path]) -> list[tuple]:
    cases: dict[tuple, dict[int, float]] = {}
    for path in paths:
        for run in json.loads(path.read_text())["runs"]:
            shape = (run["m"], run["n"], run["k"], run["batch"], run["transposes"])
            for r in run["results"]:
                if r.get("kind") not in ("config", "default") or r.get("status") != "ok" or not r.get("configuration"):
                    continue
                split = int(re.search(r"split_k=(\d+)", r["configuration"]).group(1))
                if split == 0:  # chosen at the call (a default row): not a count the probe set
                    continue
                key = (shape, block_of(r["configuration"]), re.sub(r" split_k=\d+", "", r["configuration"]))
                counts = cases.setdefault(key, {})
                counts[split] = max(counts.get(split, 0.0), r["gflops"]["median"])
    return [(shape, block, counts) for (shape, block, _), counts in cases.items() if len(counts) >= 3]


def model_time(tiles: int, k_tiles: int, split: int, groups_per_unit: int, overhead: int,
               batches: tuple[float, float] | None = None) -> float:
    """Waves of groups_per_unit a unit; or, with batches = (holds, busy_from), blas::split_k_model_time's
    form: the busiest unit's work-groups in batches of holds x G, the last taking at least busy_from x G."""
    slice_time = math.ceil(k_tiles / split) + overhead
    if batches is None:
        return math.ceil(tiles * split / (groups_per_unit * UNITS)) * slice_time
    per_unit = math.ceil(tiles * split / UNITS)
    held, fewest = batches[0] * groups_per_unit, batches[1] * groups_per_unit
    full = math.floor(per_unit / held)
    rest = per_unit - full * held
    return (full * held + (max(rest, fewest) if rest > 0 else 0.0)) / groups_per_unit * slice_time


def pick(shape: tuple, block: tuple, counts: dict[int, float], model: int | tuple[str, int], overhead: int,
         batches: tuple[float, float] | None = None, second_launch_k: int = 0) -> int:
    """The model's count among those measured (the rule searches all; the probe timed some). A split
    also pays the second launch: second_launch_k elements of K for unit_outputs outputs
    (blas::split_k_second_launch_time; committed: 128)."""
    m, n, k, batch, _ = shape
    tiles = math.ceil(m / block[0]) * math.ceil(n / block[1]) * batch
    k_tiles = math.ceil(k / block[2])
    groups = groups_per_unit(block, model)
    second = second_launch_k * UNIT_OUTPUTS / (groups * block[0] * block[1] * block[2])
    time = lambda s: model_time(tiles, k_tiles, s, groups, overhead, batches) + (second if s > 1 else 0.0)  # noqa: E731
    allowed = [s for s in counts if s == 1 or k_tiles >= MIN_SLICE_K_TILES * s]
    best = min(allowed, key=lambda s: (time(s), s))
    return best if 1 not in counts or time(1) >= GAIN * time(best) else 1


def earlier_rule(tiles: int, k_tiles: int) -> int:
    """chosen_split_k before the model (7eb8be4): split only below one tile a unit, the largest power
    of two within two work-groups a unit and 16 K tiles a slice, or a count that fills the waves of
    one a unit 1.2x better."""
    if tiles >= UNITS:
        return 1
    split = 1
    while split < 256 and tiles * 2 * split <= 2 * UNITS and k_tiles >= 16 * split:
        split *= 2
    fill = lambda s: tiles * s / (math.ceil(tiles * s / UNITS) * UNITS)
    best = split
    for s in range(2, 257):
        if tiles * s <= 2 * UNITS and k_tiles >= MIN_SLICE_K_TILES * s and \
                fill(s) > fill(best) * (1.2 if best == split else 1.0):
            best = s
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probes", nargs="*", type=Path,
                        default=[ROOT / "benchmark/results/split_probe_h200_2026-11-29.json",
                                 ROOT / "benchmark/results/split_probe_few_tiles_h200_2026-11-29.json",
                                 ROOT / "benchmark/results/split_probe_narrow_h200_2026-11-29.json",
                                 ROOT / "benchmark/results/split_probe_tall_h200_2026-11-29.json",
                                 ROOT / "benchmark/results/split_probe_mid_h200_2026-11-30.json",
                                 ROOT / "benchmark/results/split_probe_long_h200_2026-11-30.json"])
    args = parser.parse_args()
    cases = probe_cases(args.probes) + SUITE_PAIRS
    print(f"{len(cases)} (shape, block) cases; per model: geometric mean and minimum of the pick's speed over the best")
    earlier = []
    for shape, block, counts in cases:
        m, n, k, batch, _ = shape
        split = earlier_rule(math.ceil(m / block[0]) * math.ceil(n / block[1]) * batch, math.ceil(k / block[2]))
        earlier.append(counts[min(counts, key=lambda s: abs(s - split))] / max(counts.values()))
    print(f"  the earlier rule (the nearest count measured): "
          f"{math.exp(sum(map(math.log, earlier)) / len(earlier)):.3f}, min {min(earlier):.2f}")
    models = [(m, None) for m in (1, 2, ("outputs", 8192), ("outputs", 16384), ("outputs", 32768))]
    models += [(("outputs", 16384), (2.0, 1.5)), (("outputs", 16384), (2.0, 1.0)), (("outputs", 16384), (1.0, 1.0))]
    for model, batches in models:
        name = f"{model} a unit" if isinstance(model, int) else f"{model[1]} outputs a unit"
        if batches is not None:
            name += f", batches of {batches[0]:g}, at least {batches[1]:g}"
        for overhead in (4, 8, 12, 16, 24):
            scores = [counts[pick(shape, block, counts, model, overhead, batches)] / max(counts.values())
                      for shape, block, counts in cases]
            mean = math.exp(sum(map(math.log, scores)) / len(scores))
            print(f"  {name:>50}, overhead {overhead:2d} K tiles: {mean:.3f}, min {min(scores):.2f}")
    # The committed model with the second launch's cost (none of the probes is a call of a few us).
    for second_launch_k in (0, 128, 256):
        scores = [counts[pick(shape, block, counts, ("outputs", UNIT_OUTPUTS), 12, (2.0, 1.5), second_launch_k)] /
                  max(counts.values()) for shape, block, counts in cases]
        print(f"  committed model, second launch {second_launch_k:3d} elements of K: "
              f"{math.exp(sum(map(math.log, scores)) / len(scores)):.3f}, min {min(scores):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
