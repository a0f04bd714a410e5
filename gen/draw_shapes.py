#!/usr/bin/env python3
"""Draws GEMM shapes at random, as the untuned shape files were drawn: m and n log-uniform in
16..8192 and k in 16..16384, or (one in five) a batch of 8..4096 products of sizes 8..256;
transposes uniform; only shapes of 2e7 to 2e11 flops are kept. Writes a shape file in
configs/shapes/'s form.

--regime long-k draws instead the calls whose K is long beside their output: k log-uniform in
1024..16384 and at least sqrt(m n), m and n log-uniform in 32..8192 with at most 4 waves of
128 x 64 blocks on 132 compute units (528 blocks). There the measured rule took its block from
neighbours of a shorter K (benchmark/RESULTS.md, issue 12, the long-K split probe).

--regime narrow draws outputs with one narrow side: that side log-uniform in 60..110 (M or N, even
odds), the other in 256..8192, k in 128..16384. There a block of 128 columns computes up to two
thirds of its tile for nothing (benchmark/RESULTS.md, issue 12, the blocks of 96).

--regime short-side draws outputs with one short side beside a wide one and a long K: the short
side log-uniform in 96..320 (M or N, even odds), the other in 1024..8192, k in 1536..16384. A few
blocks cover the short side and a few dozen the wide one: mostly under four waves of 64 x 64 blocks, so
the whole-K blocks, the split ones and the k-group ones compete there (benchmark/RESULTS.md,
issue 12, complete evidence).

--regime short-k draws outputs with one short side beside a wide one and a short K: the short side
log-uniform in 64..256 (M or N, even odds), the other in 1024..8192, k in 64..512. There the
blocks that split K inside a work-group (k-groups) ran fastest at untuned shapes while the rule took
blocks split across work-groups, and the database had few measured shapes (benchmark/RESULTS.md,
issue 12, where the weak untuned shapes stand).

--regime mid-size draws outputs of mid size with a K of some hundreds: m and n each log-uniform in
256..2048, k in 128..1024: from a few to some hundred blocks of 128 x 128, most under one wave of
an H200, with K too short for a split to pay much. The database had measured 8 shapes there, and
the fresh draw's shapes furthest below cuBLAS stood there (benchmark/RESULTS.md, issue 12, mid-size
outputs with a K of some hundreds).

--transposes tt,nt draws among those transposes alone (uniform among them): evidence where the
database has measured few shapes of some transposes (the measured rule weighs another transposes'
shape as one a whole log-unit away). With all four, the default, a seed draws what it drew before.

  python3 gen/draw_shapes.py --seed S --count N [--regime long-k|narrow|short-side|short-k|mid-size] [--transposes tt,nt] --description TEXT --output FILE

The same seed draws the same shapes (Python's random.Random). Use a seed no other shape file used:
a file drawn for evidence (configs/shapes/coverage.json) must share no shape with the held-out ones.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_results import TRANSPOSES  # noqa: E402

MIN_FLOPS, MAX_FLOPS = 2e7, 2e11
LONG_K_MAX_BLOCKS = 4 * 132  # 128 x 64 blocks: four waves of an H200
# The regimes of one short side beside a wide one: (short side, wide side, k), each drawn log-uniform.
ONE_SHORT_SIDE = {"narrow": ((60, 110), (256, 8192), (128, 16384)),
                  "short-side": ((96, 320), (1024, 8192), (1536, 16384)),
                  "short-k": ((64, 256), (1024, 8192), (64, 512))}
MID_SIZE = ((256, 2048), (128, 1024))  # (m and n, k), each drawn log-uniform
REGIMES = ("any", "long-k", *ONE_SHORT_SIDE, "mid-size")


def log_uniform(rng: random.Random, low: int, high: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(low), math.log(high)))))


def is_long_k(m: int, n: int, k: int) -> bool:
    return k >= 1024 and k * k >= m * n and math.ceil(m / 128) * math.ceil(n / 64) <= LONG_K_MAX_BLOCKS


def draw(seed: int, count: int, regime: str = "any", transposes: tuple[str, ...] = TRANSPOSES) -> list[dict]:
    if regime not in REGIMES:
        raise ValueError(f"regime {regime!r}: expected one of {', '.join(REGIMES)}")
    if not transposes or any(t not in TRANSPOSES for t in transposes) or len(set(transposes)) != len(transposes):
        raise ValueError(f"transposes {','.join(transposes)!r}: expected distinct ones of {', '.join(TRANSPOSES)}")
    rng = random.Random(seed)
    shapes: list[dict] = []
    while len(shapes) < count:
        if regime == "long-k":
            m, n, k, batch = log_uniform(rng, 32, 8192), log_uniform(rng, 32, 8192), log_uniform(rng, 1024, 16384), 1
            if not is_long_k(m, n, k):
                continue
        elif regime in ONE_SHORT_SIDE:
            short, wide, k = (log_uniform(rng, low, high) for low, high in ONE_SHORT_SIDE[regime])
            m, n = (short, wide) if rng.random() < 0.5 else (wide, short)
            batch = 1
        elif regime == "mid-size":
            (side_low, side_high), (k_low, k_high) = MID_SIZE
            m, n = log_uniform(rng, side_low, side_high), log_uniform(rng, side_low, side_high)
            k, batch = log_uniform(rng, k_low, k_high), 1
        elif rng.random() < 0.2:
            m, n, k = (log_uniform(rng, 8, 256) for _ in range(3))
            batch = log_uniform(rng, 8, 4096)
        else:
            m, n, k, batch = log_uniform(rng, 16, 8192), log_uniform(rng, 16, 8192), log_uniform(rng, 16, 16384), 1
        # A choice among all four draws as the files before --transposes were drawn.
        drawn_transposes = rng.choice(list(transposes))
        if not MIN_FLOPS <= 2.0 * m * n * k * batch <= MAX_FLOPS:
            continue
        shape = {"m": m, "n": n, "k": k, "batch": batch, "transposes": drawn_transposes}
        if shape not in shapes:
            shapes.append(shape)
    return shapes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--regime", choices=REGIMES, default="any",
                        help="any (the untuned files' draw), long-k (long K beside few blocks), narrow "
                             "(one side of the output 60-110), short-side (one side 96-320, the other "
                             "1024-8192, K 1536-16384) or short-k (one side 64-256, the other 1024-8192, "
                             "K 64-512) or mid-size (both sides 256-2048, K 128-1024)")
    parser.add_argument("--transposes", default=",".join(TRANSPOSES),
                        help="the transposes to draw among, comma-separated (default: all four, uniform)")
    parser.add_argument("--description", required=True, help="the file's description (say what it is for)")
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.count <= 0:
        print(f"draw_shapes: error: --count {args.count}: expected a positive number", file=sys.stderr)
        return 1
    try:
        shapes = draw(args.seed, args.count, args.regime, tuple(args.transposes.split(",")))
    except ValueError as error:
        print(f"draw_shapes: error: --{error}", file=sys.stderr)
        return 1
    document = {"description": args.description, "shapes": shapes}
    args.output.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
