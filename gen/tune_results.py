"""Reading the JSON the tune_* binaries write (--json FILE).

Format (one object per run):
{
  "tool": "tune_all", "date": "2026-11-22T01:02:03Z", "element_type": "float",
  "device": {"name": str, "vendor": str, "type": "gpu"|"cpu"|..., "architecture": str, "driver_version": str},
  "runs": [                                   # one per transpose pair and problem
    {"transposes": "nn", "m": int, "n": int, "k": int, "batch": int, "problem_class": "small"|"medium"|"large"|"batched",
     "results": [
        {"name": str,                          # a configuration's text form, or the baseline's name
         "kind": "baseline" | "default" | "config",
         "status": "ok" | "build_failed" | "launch_failed" | "wrong_result" | "unsupported" | "skipped",
         "reason": str,                        # why, when status is not ok
         "gflops": {"min": float, "median": float, "max": float} | null,
         "build_seconds": float | null}
     ]}
  ]
}
Only results with status "ok" are ranked; the others carry their reason.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ResultsError(Exception):
    """A results file that cannot be read; names the file and what is wrong."""


@dataclass(frozen=True)
class Result:
    name: str
    kind: str
    status: str
    reason: str
    median_gflops: float | None


@dataclass(frozen=True)
class Run:
    transposes: str
    m: int
    n: int
    k: int
    batch: int
    problem_class: str
    results: tuple[Result, ...]

    def ranked_configs(self) -> list[Result]:
        """Verified configurations, best first (ties broken by name, so the order is stable)."""
        ok = [r for r in self.results if r.kind == "config" and r.status == "ok" and r.median_gflops is not None]
        return sorted(ok, key=lambda r: (-r.median_gflops, r.name))

    def best_baseline(self) -> Result | None:
        ok = [r for r in self.results if r.kind == "baseline" and r.status == "ok" and r.median_gflops]
        return max(ok, key=lambda r: r.median_gflops, default=None)


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    date: str
    element_type: str
    device: dict[str, str]
    runs: tuple[Run, ...]


def _require(obj: dict[str, Any], key: str, kind: type, where: str, path: Path) -> Any:
    if key not in obj:
        raise ResultsError(f"{path}: {where}: missing key '{key}'")
    value = obj[key]
    if kind is float and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kind):
        raise ResultsError(f"{path}: {where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def load_results(path: Path) -> ResultsFile:
    try:
        document = json.loads(path.read_text())
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    if not isinstance(document, dict):
        raise ResultsError(f"{path}: $: expected an object")
    device = _require(document, "device", dict, "$", path)
    for key in ("name", "vendor", "type"):
        _require(device, key, str, "$.device", path)
    runs = []
    for i, run in enumerate(_require(document, "runs", list, "$", path)):
        where = f"$.runs[{i}]"
        results = []
        for j, r in enumerate(_require(run, "results", list, where, path)):
            rw = f"{where}.results[{j}]"
            gflops = r.get("gflops")
            median = None
            if gflops is not None:
                median = _require(gflops, "median", float, rw + ".gflops", path)
            results.append(Result(_require(r, "name", str, rw, path), _require(r, "kind", str, rw, path),
                                  _require(r, "status", str, rw, path), str(r.get("reason", "")), median))
        runs.append(Run(_require(run, "transposes", str, where, path), _require(run, "m", int, where, path),
                        _require(run, "n", int, where, path), _require(run, "k", int, where, path),
                        int(run.get("batch", 1)), _require(run, "problem_class", str, where, path), tuple(results)))
    return ResultsFile(path, str(document.get("date", "")), str(document.get("element_type", "float")),
                       device, tuple(runs))
