#!/usr/bin/env python3
"""Scores the split-K cost model of blas::chosen_split_k (include/tessera/blas/gemm_config.hpp)
against split counts measured on a device, for several forms and constants: which count each model
picks at each measured (shape, block), and what that count ran at, over the best count measured there.

  python3 benchmark/gemm/split_model_fit.py [PROBE.json ...]

A PROBE is a tune_* --json run whose configurations differ only in split_k (the H200's probes,
the default: benchmark/results/split_probe_h200_2026-11-29.json, six shapes of a few waves;
split_probe_few_tiles_h200_2026-11-29.json, benchmark/gemm/split_probe/run.sh's twelve shapes;
split_probe_narrow_h200_2026-11-29.json, run.sh narrow_set.json narrow_shapes.json: six blocks of
64 and 128 work-items; split_probe_tall_h200_2026-11-29.json, run.sh tall_set.json tall_shapes.json:
the 128 x 32 block at counts up to 48; split_probe_mid_h200_2026-11-30.json, run.sh mid_set.json
mid_shapes.json: six blocks at counts 1 to 6 at twelve mid-size calls; split_probe_long_h200_2026-11-30.json,
run.sh long_set.json long_shapes.json: four blocks at counts up to 16 at ten long-K calls;
split_probe_k_groups_h200_2026-11-30.json, run.sh k_groups_set.json k_groups_shapes.json: three
k-group blocks and the 128 x 64 block at counts up to 16 at six calls). A probe timed after the
fit, split_probe_tall_mid_k_h200_2026-11-30.json (run.sh tall_mid_k_set.json tall_mid_k_shapes.json:
three blocks at counts 1 to 8 at four tall calls with K near 1000), passed alone scores the model
away from the cases it was fitted on. Besides the probes, the
pairs measured by the shape-suite runs of 2026-11-29 (one configuration at two counts, one machine
each; benchmark/RESULTS.md, "Split-K chosen by a model of waves") are scored too.

The model (blas::split_k_model_time): the busiest unit's ceil(tiles x split / units) work-groups
run in batches of H at once, a last batch of fewer than busy_from x G (at most H) as long as that
many, over G, each taking ceil(k_tiles / split) K tiles plus a slice's overhead; a split also pays
the second launch. G (blas::split_k_groups_per_unit): 16384 outputs over the work-group's, at most
1024 work-items over its own. H (blas::split_k_groups_held): what fits a unit, 32768 outputs, 2048
work-items and (committed) unit_local bytes of local memory with 1 KiB more a work-group, never
fewer than G. The earlier model (to 2026-11-30) had H = 2 G for every block and an overhead of 12
K tiles whatever their size; the committed one counts the overhead in elements of K (96) and a
work-group's outputs once per k-group. A split is taken where 5% faster than whole, from 1 to 256
with 8 K tiles a slice or more. Last, each probe file is left out of the fit in turn: the constants
that score best on the others, scored on it.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, replace
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
UNIT_OUTPUTS = 16384  # blas::split_k_unit_outputs
SECOND_LAUNCH_K = 128  # blas::split_k_second_launch_k


@dataclass(frozen=True)
class Block:
    rows: int
    cols: int
    k_tile: int
    work_items: int
    local_bytes: int
    k_groups: int = 1


@dataclass(frozen=True)
class Model:
    """A form of the split model and its constants."""
    unit_local_bytes: int | None = 84 * 1024  # None: H = 2 G, the earlier model
    overhead_k: float = 96.0  # a slice's overhead in elements of K
    overhead_in_k_tiles: float | None = None  # or in K tiles, whatever their size (earlier: 12)
    busy_from: float = 1.5
    k_group_outputs: bool = True  # a work-group's outputs once per k-group

    def groups(self, block: Block) -> tuple[int, int]:
        outputs = block.rows * block.cols * (block.k_groups if self.k_group_outputs else 1)
        busy = max(1, min(UNIT_OUTPUTS // outputs, 1024 // block.work_items))
        if self.unit_local_bytes is None:
            return busy, 2 * busy
        held = min(2 * UNIT_OUTPUTS // outputs, 2048 // block.work_items,
                   self.unit_local_bytes // (block.local_bytes + 1024))
        return busy, max(held, busy)

    def time(self, block: Block, tiles: int, k_tiles: int, split: int) -> float:
        busy, held = self.groups(block)
        overhead = self.overhead_in_k_tiles if self.overhead_in_k_tiles is not None else self.overhead_k / block.k_tile
        per_unit = math.ceil(tiles * split / UNITS)
        full = per_unit // held
        rest = per_unit - full * held
        batches = (full * held + (max(rest, min(self.busy_from * busy, held)) if rest > 0 else 0.0)) / busy
        second = SECOND_LAUNCH_K * UNIT_OUTPUTS / (busy * block.rows * block.cols * block.k_tile) if split > 1 else 0.0
        return batches * (math.ceil(k_tiles / split) + overhead) + second


EARLIER = Model(unit_local_bytes=None, overhead_in_k_tiles=12.0, k_group_outputs=False)
COMMITTED = Model()

# (m, n, k, batch, transposes), block, {split: GFLOP/s}: one configuration at two counts in two
# shape-suite runs (the earlier rule's pick and a model's).
SUITE_PAIRS = [
    ((768, 768, 4096, 1, "nt"), Block(128, 128, 8, 256, 16384), {7: 35569.0, 13: 28899.0}),
    ((768, 768, 3072, 1, "tn"), Block(128, 128, 16, 256, 32768), {7: 32781.0, 8: 26112.0}),
    ((6144, 1024, 1024, 1, "nn"), Block(128, 128, 16, 256, 32768), {1: 42422.0, 2: 34502.0}),
    ((2500, 1200, 700, 1, "nt"), Block(128, 64, 16, 128, 24576), {1: 36674.0, 2: 30191.0}),
]


def block_of(configuration: str, element_bytes: int = 4) -> Block:
    """A configuration's block, as gemm_rules.def derives it."""
    config = PARAMS.config_class().from_text(configuration)
    v = RULES.evaluate(config.rule_inputs(element_bytes, compile_time_limits()))
    return Block(v["block_rows"], v["block_cols"], v["k_tile"], v["work_group_size"], v["local_memory_bytes"],
                 v["k_groups"])


def probe_cases(paths: list[Path]) -> list[tuple]:
    """(shape, block, {split: GFLOP/s}, file) of every configuration timed at 3 counts or more."""
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
                key = (shape, re.sub(r" split_k=\d+", "", r["configuration"]), path.name)
                counts = cases.setdefault(key, {})
                counts[split] = max(counts.get(split, 0.0), r["gflops"]["median"])
    return [(shape, block_of(f"{configuration} split_k=1"), counts, name)
            for (shape, configuration, name), counts in cases.items() if len(counts) >= 3]


def pick(model: Model, shape: tuple, block: Block, counts: dict[int, float]) -> int:
    """The model's count among those measured (the rule searches all; the probe timed some)."""
    m, n, k, batch, _ = shape
    tiles = math.ceil(m / block.rows) * math.ceil(n / block.cols) * batch
    k_tiles = math.ceil(k / block.k_tile)
    allowed = [s for s in counts if s == 1 or k_tiles >= MIN_SLICE_K_TILES * s]
    best = min(allowed, key=lambda s: (model.time(block, tiles, k_tiles, s), s))
    if 1 in counts and model.time(block, tiles, k_tiles, 1) < GAIN * model.time(block, tiles, k_tiles, best):
        return 1
    return best


def scores(model: Model, cases: list[tuple]) -> list[float]:
    return [counts[pick(model, shape, block, counts)] / max(counts.values()) for shape, block, counts, *_ in cases]


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(map(math.log, values)) / len(values))


def summary(model: Model, cases: list[tuple]) -> str:
    s = scores(model, cases)
    return f"{geometric_mean(s):.3f}, min {min(s):.2f}, below 0.85 at {sum(x < 0.85 for x in s)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probes", nargs="*", type=Path,
                        default=[ROOT / "benchmark/results" / name for name in (
                            "split_probe_h200_2026-11-29.json", "split_probe_few_tiles_h200_2026-11-29.json",
                            "split_probe_narrow_h200_2026-11-29.json", "split_probe_tall_h200_2026-11-29.json",
                            "split_probe_mid_h200_2026-11-30.json", "split_probe_long_h200_2026-11-30.json",
                            "split_probe_k_groups_h200_2026-11-30.json")])
    args = parser.parse_args()
    cases = probe_cases(args.probes) + [(*pair, "suite pairs") for pair in SUITE_PAIRS]
    k_group_cases = [c for c in cases if c[1].k_groups > 1]
    print(f"{len(cases)} (shape, block) cases ({len(k_group_cases)} of k-group blocks); per model: geometric "
          "mean and minimum of the pick's speed over the best count measured, and how many below 0.85")
    print(f"  earlier model (H = 2 G, overhead 12 K tiles): {summary(EARLIER, cases)}")
    print(f"  committed model: {summary(COMMITTED, cases)}")
    if k_group_cases:
        print(f"    at k-group blocks {summary(COMMITTED, k_group_cases)}; with their outputs not counted per "
              f"k-group {summary(replace(COMMITTED, k_group_outputs=False), k_group_cases)}")
    print(f"    H = 2 G: {summary(replace(COMMITTED, unit_local_bytes=None), cases)}")
    print(f"    overhead 6 K tiles whatever their size: {summary(replace(COMMITTED, overhead_in_k_tiles=6.0), cases)}")
    grid = [replace(COMMITTED, unit_local_bytes=kib * 1024, overhead_k=float(overhead))
            for kib in (68, 76, 84, 92, 100) for overhead in (48, 96, 192)]
    for model in grid:
        print(f"    {model.unit_local_bytes // 1024:3d} KiB a unit, overhead {model.overhead_k:3.0f} elements of K: "
              f"{summary(model, cases)}")
    # Each probe file left out in turn: the grid's best on the others, scored on it.
    files = sorted({c[3] for c in cases})
    left_out, earlier = [], []
    for name in files:
        fitted = [c for c in cases if c[3] != name]
        best = max(grid, key=lambda model: sum(map(math.log, scores(model, fitted))))
        held = [c for c in cases if c[3] == name]
        left_out += scores(best, held)
        earlier += scores(EARLIER, held)
        print(f"  left out {name}: {best.unit_local_bytes // 1024} KiB, overhead {best.overhead_k:.0f} fitted on the "
              f"others; there {geometric_mean(scores(best, held)):.3f} (earlier model "
              f"{geometric_mean(scores(EARLIER, held)):.3f}, {len(held)} cases)")
    print(f"  each file left out in turn: {geometric_mean(left_out):.3f}, the earlier model "
          f"{geometric_mean(earlier):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
