"""Reading the JSON the tune_* binaries write (--json FILE).

Format (one object per run):
{
  "tool": "tune_all", "date": "2026-11-22T01:02:03Z", "element_type": "float",
  "precision": "fp32" | "tf32" | "fp16" | "bf16",  # --precision (absent before it existed: fp32)
  "epilogue": null | "bias_relu" | "scale_add",  # a GEMM tuned with this epilogue fused
  "partial": bool,                             # stopped (or failed) before every run was complete
  "stopped_by": null | "SIGINT" | "SIGTERM",
  "device": {"name": str, "vendor": str, "type": "gpu"|"cpu"|..., "architecture": str, "driver_version": str,
             "peak_gflops": float | null, "peak": str},   # rank 0's
  "devices": [{...as "device"...}],           # every device model of the job (an MPI sweep: several)
  "ranks": [{"rank": int, "host": str, "device": str | null, "error": str | null}],
  "timing": {"method": str, "warmups": int, "repetitions": int, "finalists": int, "rounds": int},
  "runs": [                                   # one per transpose pair and problem
    {"transposes": "nn"|"nt"|"tn"|"tt", "m": int, "n": int, "k": int, "batch": int,
     "problem_class": "small"|"medium"|"large"|"batched",
     "configs_total": int, "partial": bool,
     "measured_by": {"rank": int, "host": str, "device": str},   # the device's entry in "devices"
     "failure": str,                          # only where the rank's device failed (the run is partial)
     "results": [
        {"name": str,                          # a configuration's text form, or the baseline's name
         "kind": "baseline" | "default" | "config",
         "configuration": str | null,          # the text form of a default or config row
         "status": "ok" | "build_failed" | "launch_failed" | "wrong_result" | "unsupported" | "implausible"
                   | "skipped",
         "reason": str,                        # why, when status is not ok
         "where": "opencl_device" | "host" | "cuda_device",
         "gflops": {"min": float, "median": float, "max": float} | null,
         "seconds": {"min": float, "median": float, "max": float, "spread": float} | null,
         "build_seconds": float | null,
         "max_rel_err": float | null}          # max |got - want| / max |want| against the FP64 product
     ],
     "finalists": {"rounds": int,              # null when the run stopped before them
                   "entries": [{"name": str, "kind": "config" | "default", "configuration": str,
                                "seconds": {"min", "median", "max", "spread"}, "gflops": {"median": float}}]},
     "decision": {"verdict": "best" | "default_kept" | "none",
                  "best": str | null, "best_configuration": str | null,
                  "default": str | null, "default_configuration": str | null, "reason": str} | null}
  ]
}
Only results with status "ok" are ranked; the others carry their reason. A configuration is
BEST only when its re-measured median beats the default's by more than the spread (the larger
interquartile range of the two).
"""
from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRANSPOSES = ("nn", "nt", "tn", "tt")
PROBLEM_CLASSES = ("small", "medium", "large", "batched")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
VERDICTS = ("best", "default_kept", "none")


class ResultsError(Exception):
    """A results file that cannot be read; names the file and what is wrong."""


@dataclass(frozen=True)
class Result:
    name: str
    kind: str
    status: str
    reason: str
    median_gflops: float | None
    configuration: str | None = None


@dataclass(frozen=True)
class Finalist:
    name: str
    kind: str
    configuration: str
    median_seconds: float
    spread_seconds: float


@dataclass(frozen=True)
class Decision:
    verdict: str
    best_configuration: str | None
    default_configuration: str | None
    reason: str


@dataclass(frozen=True)
class Run:
    transposes: str
    m: int
    n: int
    k: int
    batch: int
    problem_class: str
    results: tuple[Result, ...]
    partial: bool = False
    finalists: tuple[Finalist, ...] = ()
    decision: Decision | None = None
    device: dict[str, str] | None = None  # the device that measured it, where the file names one per run

    def size(self) -> str:
        return f"{self.m}x{self.n}x{self.k}" + (f" batch {self.batch}" if self.batch > 1 else "")

    def timed_configurations(self) -> dict[str, float]:
        """Each configuration timed and verified (its search and default rows): its best median GFLOP/s."""
        timed: dict[str, float] = {}
        for r in self.results:
            if r.kind in ("config", "default") and r.status == "ok" and r.configuration and r.median_gflops:
                timed[r.configuration] = max(r.median_gflops, timed.get(r.configuration, 0.0))
        return timed

    def ranked_configs(self) -> list[Result]:
        """Verified configurations, best first (ties broken by name, so the order is stable)."""
        ok = [r for r in self.results if r.kind == "config" and r.status == "ok" and r.median_gflops is not None]
        return sorted(ok, key=lambda r: (-r.median_gflops, r.name))

    def verified_baselines(self) -> list[Result]:
        """The baseline rows that ran and were verified, with a timing."""
        return [r for r in self.results if r.kind == "baseline" and r.status == "ok" and r.median_gflops]

    def best_baseline(self) -> Result | None:
        return max(self.verified_baselines(), key=lambda r: r.median_gflops, default=None)

    def baseline(self, name: str) -> Result | None:
        """The verified row of the baseline called name, if it ran."""
        return next((r for r in self.verified_baselines() if r.name == name), None)

    def default_result(self) -> Result | None:
        return next((r for r in self.results if r.kind == "default" and r.status == "ok"), None)

    def finalist(self, configuration: str, kind: str) -> Finalist | None:
        return next((f for f in self.finalists if f.kind == kind and f.configuration == configuration), None)


@dataclass(frozen=True)
class ResultsFile:
    path: Path
    date: str
    element_type: str
    device: dict[str, str]
    runs: tuple[Run, ...]
    epilogue: str | None = None
    partial: bool = False
    stopped_by: str | None = None
    precision: str = "fp32"


def beats(faster: Finalist, slower: Finalist) -> bool:
    """The tuner's rule: faster's median is below slower's by more than the spread (the larger
    interquartile range of the two)."""
    return slower.median_seconds - faster.median_seconds > max(faster.spread_seconds, slower.spread_seconds)


def _require(obj: Any, key: str, kind: type, where: str, path: Path) -> Any:
    if not isinstance(obj, dict):
        raise ResultsError(f"{path}: {where}: expected an object")
    if key not in obj:
        raise ResultsError(f"{path}: {where}: missing key '{key}'")
    value = obj[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ResultsError(f"{path}: {where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def _one_of(value: str, allowed: tuple[str, ...], where: str, path: Path) -> str:
    if value not in allowed:
        raise ResultsError(f"{path}: {where}: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _positive(value: float, where: str, path: Path) -> float:
    if not math.isfinite(value) or value <= 0:
        raise ResultsError(f"{path}: {where}: expected a positive number, got {value}")
    return value


def _optional_str(obj: dict[str, Any], key: str, where: str, path: Path) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise ResultsError(f"{path}: {where}.{key}: expected a string or null, got {type(value).__name__}")
    return value


def _result(r: Any, where: str, path: Path) -> Result:
    status = _require(r, "status", str, where, path)
    gflops = r.get("gflops")
    median = None
    if gflops is not None:
        median = _require(gflops, "median", float, where + ".gflops", path)
    if status == "ok":
        # A zero, negative or infinite figure is no measurement: rankings divide by it.
        if median is None:
            raise ResultsError(f"{path}: {where}.gflops: an ok result needs a GFLOP/s figure")
        _positive(median, where + ".gflops.median", path)
    return Result(_require(r, "name", str, where, path), _require(r, "kind", str, where, path), status,
                  str(r.get("reason", "")), median, _optional_str(r, "configuration", where, path))


def _finalists(run: dict[str, Any], where: str, path: Path) -> tuple[Finalist, ...]:
    block = run.get("finalists")
    if block is None:
        return ()
    out = []
    for i, f in enumerate(_require(block, "entries", list, where + ".finalists", path)):
        fw = f"{where}.finalists.entries[{i}]"
        seconds = _require(f, "seconds", dict, fw, path)
        out.append(Finalist(_require(f, "name", str, fw, path), _require(f, "kind", str, fw, path),
                            _require(f, "configuration", str, fw, path),
                            _positive(_require(seconds, "median", float, fw + ".seconds", path), fw + ".seconds.median",
                                      path),
                            _require(seconds, "spread", float, fw + ".seconds", path)))
    return tuple(out)


def _decision(run: dict[str, Any], where: str, path: Path) -> Decision | None:
    d = run.get("decision")
    if d is None:
        return None
    dw = where + ".decision"
    return Decision(_one_of(_require(d, "verdict", str, dw, path), VERDICTS, dw + ".verdict", path),
                    _optional_str(d, "best_configuration", dw, path), _optional_str(d, "default_configuration", dw, path),
                    str(d.get("reason", "")))


def results_text(path: Path) -> str:
    """A results file's text; a name ending in .gz is read through gzip (the large matrices of
    benchmark/results/ are kept compressed)."""
    path = Path(path)
    if path.suffix != ".gz":
        return path.read_text(encoding="utf-8")
    try:
        with gzip.open(path, "rb") as f:
            return f.read().decode("utf-8")
    except (gzip.BadGzipFile, EOFError) as e:
        raise ResultsError(f"{path}: not a gzip file: {e}") from None


def read_document(path: Path) -> Any:
    """A results file's JSON (results_text), what is wrong with it named with the path."""
    try:
        return json.loads(results_text(path))
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None


def load_results(path: Path) -> ResultsFile:
    return results_from_document(read_document(path), path)


def results_from_document(document: Any, path: Path) -> ResultsFile:
    """The results of a tune_* --json document read from path (named in every error)."""
    if not isinstance(document, dict):
        raise ResultsError(f"{path}: $: expected an object")
    device = _require(document, "device", dict, "$", path)
    for key in ("name", "vendor", "type"):
        _require(device, key, str, "$.device", path)
    # An MPI sweep's devices, one per model; each run names the one that measured it.
    devices = {device["name"]: device}
    for i, d in enumerate(document.get("devices") or []):
        for key in ("name", "vendor", "type"):
            _require(d, key, str, f"$.devices[{i}]", path)
        devices[d["name"]] = d
    runs = []
    for i, run in enumerate(_require(document, "runs", list, "$", path)):
        where = f"$.runs[{i}]"
        if not isinstance(run, dict):
            raise ResultsError(f"{path}: {where}: expected an object")
        run_device = None
        if run.get("measured_by") is not None:
            name = _require(_require(run, "measured_by", dict, where, path), "device", str, where + ".measured_by", path)
            if name not in devices:
                raise ResultsError(f"{path}: {where}.measured_by.device: {name!r} is not among $.devices")
            run_device = devices[name]
        results = tuple(_result(r, f"{where}.results[{j}]", path)
                        for j, r in enumerate(_require(run, "results", list, where, path)))
        batch = run.get("batch", 1)
        if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
            raise ResultsError(f"{path}: {where}.batch: expected a whole number >= 1, got {batch!r}")
        runs.append(Run(_one_of(_require(run, "transposes", str, where, path), TRANSPOSES, where + ".transposes", path),
                        _require(run, "m", int, where, path), _require(run, "n", int, where, path),
                        _require(run, "k", int, where, path), batch,
                        _one_of(_require(run, "problem_class", str, where, path), PROBLEM_CLASSES,
                                where + ".problem_class", path),
                        results, bool(run.get("partial", False)), _finalists(run, where, path),
                        _decision(run, where, path), run_device))
    return ResultsFile(Path(path), str(document.get("date", "")), str(document.get("element_type", "float")),
                       device, tuple(runs), _optional_str(document, "epilogue", "$", path),
                       bool(document.get("partial", False)), _optional_str(document, "stopped_by", "$", path),
                       _one_of(str(document.get("precision", "fp32")), PRECISIONS, "$.precision", path))
