#!/usr/bin/env python3
"""Two builds of tessera side by side: bench_gemm_shapes --json runs of build A and of build B
over the same shapes, in one session of one device, their passes interleaved (A, B, B, A), as
benchmark/RESULTS.md compares a change of the defaults database or the selection rule.

  python3 gen/side_by_side.py --a A1.json A2.json --b B1.json B2.json [--json OUT]

The figure of record is tessera's own speed, B over A, at each shape: the geometric mean of its
passes in B over that in A. Both builds call the same cuBLAS, and cuBLAS's speed at small shapes
varied by up to 20% between passes on an H200 where tessera's varied by 3%, so a ratio to cuBLAS
taken per pass moves with cuBLAS. The ratios to cuBLAS and CLBlast shown (below 0.75x cuBLAS,
below 1.2x CLBlast: issue 12's lines) divide by the geometric mean of the baseline over every
pass of both builds.

Per suite file, the shapes whose configuration differs between the builds (changed picks) and
those where it does not (the control: their ratio shows what the passes differ by alone), and
over all changed picks: the count, B / A, A and B to cuBLAS, the counts below 0.75x cuBLAS and
below 1.2x CLBlast, and how many moved by more than 10% either way. Each build's passes against
its first say how steady the device was. Shapes where tessera's row failed in some pass are
left out and named. Files of .json.gz are read as they are committed.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from shape_bench import ShapesError, gflops, load  # noqa: E402

CUBLAS = "cuBLAS (no TF32)"
CLBLAST = "CLBlast"
FLOOR_CUBLAS = 0.75  # issue 12: no shape below 0.75x cuBLAS
FLOOR_CLBLAST = 1.2  # issue 12: at least 1.2x CLBlast at every shape
MOVED = 0.1  # a shape "moved" when B / A is above 1 + MOVED or below 1 / (1 + MOVED)


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def keyed(path: Path, document: dict) -> dict[tuple[str, str], dict]:
    out: dict[tuple[str, str], dict] = {}
    for shape in document["shapes"]:
        key = (str(shape.get("suite", "")), shape["label"])
        if key in out:
            raise ShapesError(f"{path}: {shape['label']} of {key[0] or 'its suite'} appears twice")
        out[key] = shape
    return out


def matched(paths: list[Path]) -> tuple[list[tuple[str, str]], list[dict[tuple[str, str], dict]]]:
    """The shapes (in the first file's order) and each file's shapes by key; every file must hold
    the same shapes."""
    runs = [keyed(p, load(p)) for p in paths]
    order = list(runs[0])
    for path, run in zip(paths[1:], runs[1:]):
        if set(run) != set(runs[0]):
            missing = [k for k in order if k not in run] or [k for k in run if k not in runs[0]]
            suite, label = missing[0]
            raise ShapesError(f"{path}: not the shapes of {paths[0]}: {label} ({suite or 'no suite'}) is in one only")
    return order, runs


def compare(a_paths: list[Path], b_paths: list[Path]) -> dict:
    order, runs = matched(a_paths + b_paths)
    a_runs, b_runs = runs[: len(a_paths)], runs[len(a_paths):]
    shapes, failed = [], []
    for key in order:
        a = [gflops(r[key], "tessera") for r in a_runs]
        b = [gflops(r[key], "tessera") for r in b_runs]
        if None in a or None in b:
            failed.append(key[1])
            continue
        row = {"suite": key[0], "label": key[1], "a_configuration": a_runs[0][key].get("configuration"),
               "b_configuration": b_runs[0][key].get("configuration"), "b_over_a": geomean(b) / geomean(a)}
        row["changed"] = row["a_configuration"] != row["b_configuration"]
        for baseline, name in ((CUBLAS, "cublas"), (CLBLAST, "clblast")):
            theirs = [gflops(r[key], baseline) for r in runs]
            if all(theirs):
                row[f"a_over_{name}"] = geomean(a) / geomean(theirs)
                row[f"b_over_{name}"] = geomean(b) / geomean(theirs)
        shapes.append(row)
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in shapes:
        suite = Path(row["suite"]).name or "(no suite)"
        groups[f"{suite}, {'changed picks' if row['changed'] else 'control'}"].append(row)
    groups["all changed picks"] = [row for row in shapes if row["changed"]]

    def summary(rows: list[dict]) -> dict:
        out = {"shapes": len(rows), "b_over_a": geomean([r["b_over_a"] for r in rows]),
               "moved_up": sum(r["b_over_a"] > 1 + MOVED for r in rows),
               "moved_down": sum(r["b_over_a"] < 1 / (1 + MOVED) for r in rows)}
        for name, floor in (("cublas", FLOOR_CUBLAS), ("clblast", FLOOR_CLBLAST)):
            timed = [r for r in rows if f"a_over_{name}" in r]
            if timed:
                out[f"a_over_{name}"] = geomean([r[f"a_over_{name}"] for r in timed])
                out[f"b_over_{name}"] = geomean([r[f"b_over_{name}"] for r in timed])
                out[f"a_below_{floor}x_{name}"] = sum(r[f"a_over_{name}"] < floor for r in timed)
                out[f"b_below_{floor}x_{name}"] = sum(r[f"b_over_{name}"] < floor for r in timed)
        return out

    def steadiness(build: list[dict]) -> list[float | None]:
        """Each pass's tessera speed over the first pass's (geometric mean over the shapes)."""
        keys = [k for k in order if all(gflops(r[k], "tessera") for r in build)]
        return [geomean([gflops(r[k], "tessera") / gflops(build[0][k], "tessera") for k in keys]) for r in build[1:]]

    return {"a": [str(p) for p in a_paths], "b": [str(p) for p in b_paths],
            "groups": {name: summary(rows) for name, rows in groups.items() if rows},
            "steadiness": {"a": steadiness(a_runs), "b": steadiness(b_runs)},
            "failed": failed, "shapes": shapes}


def report(result: dict) -> str:
    lines = ["group | shapes | B / A | A, B to cuBLAS | below 0.75x cuBLAS A -> B | below 1.2x CLBlast A -> B "
             "| up / down 10%"]
    for name, g in result["groups"].items():
        cublas = (f"{g['a_over_cublas']:.3f} -> {g['b_over_cublas']:.3f}" if "a_over_cublas" in g else "-")
        below = (f"{g['a_below_0.75x_cublas']} -> {g['b_below_0.75x_cublas']}" if "a_over_cublas" in g else "-")
        below_cl = (f"{g['a_below_1.2x_clblast']} -> {g['b_below_1.2x_clblast']}" if "a_over_clblast" in g else "-")
        lines.append(f"{name} | {g['shapes']} | {g['b_over_a']:.3f} | {cublas} | {below} | {below_cl} | "
                     f"{g['moved_up']} / {g['moved_down']}")
    for build in ("a", "b"):
        passes = ", ".join(f"{x:.3f}" for x in result["steadiness"][build])
        lines.append(f"build {build.upper()}: its later passes over its first: {passes or 'one pass'}")
    if result["failed"]:
        lines.append(f"left out, tessera's row failed in some pass: {', '.join(result['failed'])}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", type=Path, nargs="+", required=True, help="build A's passes (bench_gemm_shapes --json)")
    parser.add_argument("--b", type=Path, nargs="+", required=True, help="build B's passes, over the same shapes")
    parser.add_argument("--json", type=Path, help="write the comparison, group by group and shape by shape")
    args = parser.parse_args(argv)
    try:
        result = compare(args.a, args.b)
        print(report(result))
        if args.json:
            write_text_atomically(args.json, json.dumps(result, indent=1) + "\n")
    except (ShapesError, FileWriteError, OSError) as e:
        print(f"side_by_side: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
