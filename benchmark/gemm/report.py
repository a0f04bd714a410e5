#!/usr/bin/env python3
"""Turns bench_gemm's JSON output into the Markdown tables of benchmark/RESULTS.md.

Usage: report.py bench.json [more.json ...]

One row per problem (type, transposes, shape): GFLOP/s of each implementation and the
ratios of tessera's default to each baseline, all from the same run. Extra configurations
(tessera[...]) get a table of their own.
"""
import argparse
import json
import re
from collections import defaultdict

NAME = re.compile(r"^(?P<impl>[^/]+)/(?P<type>float|double)/(?P<trans>[nt]{2})/(?P<shape>[0-9x]+)")


def load(paths):
    rows = defaultdict(dict)  # (type, trans, shape) -> impl -> (gflops, label or error)
    context = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context.update(data.get("context", {}))
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue  # with --benchmark_repetitions, the median stands for the run
            m = NAME.match(b["name"])
            if not m:
                continue
            key = (m["type"], m["trans"], m["shape"])
            if b.get("error_occurred"):
                rows[key][m["impl"]] = (None, b.get("error_message", "error"))
            else:
                rows[key][m["impl"]] = (b.get("GFLOP"), b.get("label", ""))
    return rows, context


def fmt(v):
    return "-" if v is None else f"{v:,.1f}"


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}x"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+")
    args = parser.parse_args()
    rows, context = load(args.json)
    print(f"device: {context.get('device', '?')}, driver {context.get('driver', '?')}, "
          f"date {context.get('date', '?')}\n")
    baselines = [b for b in ("clblast", "openblas", "cublas") if any(b in r for r in rows.values())]
    head = ["problem", "tessera"] + baselines + [f"tessera / {b}" for b in baselines]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    configs = []
    for key in sorted(rows, key=lambda k: (k[0], k[1], [int(x) for x in k[2].split("x")])):
        r = rows[key]
        t = r.get("tessera", (None, ""))[0]
        cells = [f"{key[0]} {key[1].upper()} {key[2]}", fmt(t)]
        cells += [fmt(r.get(b, (None, ""))[0]) for b in baselines]
        cells += [ratio(t, r.get(b, (None, ""))[0]) for b in baselines]
        print("| " + " | ".join(cells) + " |")
        for impl, (g, label) in r.items():
            if impl.startswith("tessera["):
                configs.append((key, impl[8:-1], g, label, r))
    if configs:
        print("\nConfigurations tried (GFLOP/s; ratios to the baselines of the same run):\n")
        head = ["problem", "configuration", "GFLOP/s"] + [f"/ {b}" for b in baselines]
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for key, cfg, g, label, r in sorted(configs, key=lambda c: (c[0], -(c[2] or 0))):
            cells = [f"{key[0]} {key[1].upper()} {key[2]}", f"`{cfg}`", fmt(g) if g is not None else label]
            cells += [ratio(g, r.get(b, (None, ""))[0]) for b in baselines]
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
