#!/usr/bin/env python3
"""Markdown table of bench_kernel_generator_reductions' Google Benchmark JSON.

One row per shape, one column per operation; each cell is "GB/s (copy ratio, kernels)", or
why the benchmark has no figure ("not run", "MISMATCH"). With --repetitions the median
aggregate is used where there is one.

    python3 benchmark/kernel_generator/reductions_table.py reductions.json > table.md
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def split_name(name: str) -> tuple[str, str]:
    """'softmax_rows/4096x4096/manual_time' (or '..._median') -> ('softmax_rows', '4096x4096')."""
    parts = name.split("/")
    return parts[0], parts[1].split("_")[0] if len(parts) > 1 else ""


def format_cell(run: dict[str, Any]) -> str:
    if run.get("error_occurred"):
        message = run.get("error_message", "")
        if message.startswith("not run"):
            return "not run"
        return "MISMATCH"
    gbs = run["bytes_per_second"] / 1e9
    return f"{gbs:.3g} ({run['copy_ratio']:.2f}x, {int(round(run['kernels']))})"


def chosen_runs(benchmarks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One run per benchmark name: the median aggregate when there is one, else the last iteration run."""
    runs: dict[str, dict[str, Any]] = {}
    for run in benchmarks:
        name = run.get("run_name", run["name"])
        if run.get("run_type") == "aggregate":
            if run.get("aggregate_name") == "median":
                runs[name] = run
        elif name not in runs or runs[name].get("run_type") != "aggregate":
            runs[name] = run
    return runs


def table(document: dict[str, Any]) -> tuple[str, list[str]]:
    """The markdown table and the notes (messages of benchmarks that did not give a figure)."""
    runs = chosen_runs(document["benchmarks"])
    operations: list[str] = []
    shapes: list[str] = []
    cells: dict[tuple[str, str], str] = {}
    notes: list[str] = []
    for name, run in runs.items():
        operation, shape = split_name(name)
        if operation not in operations:
            operations.append(operation)
        if shape not in shapes:
            shapes.append(shape)
        cells[(shape, operation)] = format_cell(run)
        if run.get("error_occurred"):
            message = run.get("error_message", "")
            verdict = "not run" if message.startswith("not run") else "FAIL"
            notes.append(f"- {verdict} {name}: {message}")
    lines = ["| shape | " + " | ".join(operations) + " |", "| --- |" + " --- |" * len(operations)]
    for shape in shapes:
        lines.append(f"| {shape} | " + " | ".join(cells.get((shape, op), "") for op in operations) + " |")
    return "\n".join(lines), notes


def load_possibly_truncated(text: str) -> dict[str, Any]:
    """The JSON document; when the run was killed mid-way (a timeout), the benchmarks finished so far."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        end = text.rfind("\n    }")  # the end of the last complete benchmark entry
        if end < 0:
            raise
        print("(the run was cut short: its JSON is truncated; the benchmarks it finished follow)\n")
        return json.loads(text[: end + len("\n    }")] + "\n  ]\n}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("json", help="Google Benchmark JSON of bench_kernel_generator_reductions")
    parser.add_argument("--transpose", action="store_true", help="one row per operation instead of per shape")
    args = parser.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        document = load_possibly_truncated(f.read())
    text, notes = table(document) if not args.transpose else transposed(document)
    context = document.get("context", {})
    print(f"Cells: GB/s (bytes_per_second / 1e9), in parentheses copy_ratio and kernels launched. "
          f"{context.get('host_name', '')} {context.get('date', '')}\n")
    print(text)
    if notes:
        print("\n" + "\n".join(notes))
    return 1 if any(n.startswith("- FAIL") for n in notes) else 0


def transposed(document: dict[str, Any]) -> tuple[str, list[str]]:
    text, notes = table(document)
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()]
    header, body = rows[0], rows[2:]
    columns = list(zip(*([header] + body)))
    lines = ["| operation | " + " | ".join(columns[0][1:]) + " |", "| --- |" + " --- |" * (len(columns[0]) - 1)]
    for column in columns[1:]:
        lines.append(f"| {column[0]} | " + " | ".join(column[1:]) + " |")
    return "\n".join(lines), notes


if __name__ == "__main__":
    sys.exit(main())
