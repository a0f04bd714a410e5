#!/usr/bin/env python3
"""A PNG of GFLOP/s per configuration from tune_* results, baselines drawn as lines.

One panel per run (transposes and size); configurations sorted worst to best, failed ones
left out and counted in the panel's title."""
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
from tune_results import ResultsError, load_results  # noqa: E402


def plot(results_path: Path, output: Path) -> None:
    results = load_results(results_path)
    runs = results.runs
    fig, axes = plt.subplots(len(runs), 1, figsize=(11, 3.2 * max(len(runs), 1)), squeeze=False)
    for ax, run in zip(axes[:, 0], runs):
        ranked = list(reversed(run.ranked_configs()))
        failed = sum(1 for r in run.results if r.kind == "config" and r.status != "ok")
        ax.bar(range(len(ranked)), [r.median_gflops for r in ranked], color="tab:blue", width=0.9)
        for r, color in zip((r for r in run.results if r.kind != "config" and r.status == "ok" and r.median_gflops),
                            ("tab:red", "tab:green", "tab:orange", "tab:purple")):
            ax.axhline(r.median_gflops, color=color, linestyle="--", label=f"{r.name}: {r.median_gflops:.0f}")
        ax.set_title(f"{run.transposes.upper()} {run.m}x{run.n}x{run.k}"
                     + (" (partial)" if run.partial else "")
                     + (f" batch {run.batch}" if run.batch > 1 else "")
                     + f" on {results.device['name']}: {len(ranked)} configurations"
                     + (f", {failed} failed (not shown)" if failed else ""), fontsize=9)
        ax.set_ylabel("GFLOP/s")
        ax.set_xlabel("configuration (worst to best)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    # Rendered in memory, then written whole: a bad path or a full disk leaves no half a PNG.
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=110)
    plt.close(fig)
    write_bytes_atomically(output, png.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        plot(args.results, args.output)
    except (ResultsError, FileWriteError) as e:
        print(f"plot_results: error: {e}", file=sys.stderr)
        return 1
    print(f"plot_results: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
