#!/usr/bin/env python3
"""A PNG of the shape-suite benchmark (bench_gemm_shapes --json): per shape, tessera's ratio
(shipped defaults) to each baseline, with the acceptance lines of issue 12 (0.75x and 0.90x of
cuBLAS, 1.2x of CLBlast) and each baseline's geometric mean in the legend."""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_bytes_atomically  # noqa: E402
from shape_bench import ShapesError, gflops, load  # noqa: E402


def ratios(document: dict) -> dict[str, list[float | None]]:
    """Baseline name -> tessera's ratio at each shape (None where a row failed)."""
    names = sorted({name for s in document["shapes"] for name in s["results"] if name != "tessera"})
    out: dict[str, list[float | None]] = {name: [] for name in names}
    for s in document["shapes"]:
        mine = gflops(s, "tessera")
        for name in names:
            theirs = gflops(s, name)
            out[name].append(mine / theirs if mine and theirs else None)
    return out


def plot(document: dict) -> bytes:
    labels = [s["label"] for s in document["shapes"]]
    per_baseline = ratios(document)
    fig, ax = plt.subplots(figsize=(max(8.0, 0.45 * len(labels)), 5.0))
    width = 0.8 / max(len(per_baseline), 1)
    for i, (name, values) in enumerate(per_baseline.items()):
        geomean = document.get("summary", {}).get(name, {}).get("geomean")
        ax.bar([x + i * width for x in range(len(labels))], [v or 0.0 for v in values], width=width,
               label=f"{name}" + (f" (geometric mean {geomean:.2f}x)" if geomean else ""))
    for level, style in ((1.0, "-"), (0.9, "--"), (0.75, ":"), (1.2, "-.")):
        ax.axhline(level, color="gray", linestyle=style, linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
    ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("tessera / baseline (GFLOP/s ratio)")
    ax.set_title(f"tessera's shipped defaults on {document.get('device', '?')}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path, help="bench_gemm_shapes --json output")
    parser.add_argument("output", type=Path, help="the PNG to write")
    args = parser.parse_args(argv)
    try:
        write_bytes_atomically(args.output, plot(load(args.results)))
    except (ShapesError, FileWriteError, OSError) as e:
        print(f"plot_shapes: error: {e}", file=sys.stderr)
        return 1
    print(f"plot_shapes: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
