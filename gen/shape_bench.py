"""Reading the shape-suite benchmark's results (benchmark/gemm/bench_gemm_shapes --json), for
gen/plot_shapes.py and gen/side_by_side.py. A file may be gzip-compressed (.gz), as the results
committed under benchmark/results are."""
from __future__ import annotations

import gzip
import json
from pathlib import Path


class ShapesError(Exception):
    pass


def load(path: Path) -> dict:
    """The benchmark's document at path, its shapes checked for a label and results."""
    try:
        raw = path.read_bytes()
        text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise ShapesError(f"{path}: cannot be read: {e}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise ShapesError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    if not isinstance(document, dict) or not isinstance(document.get("shapes"), list):
        raise ShapesError(f"{path}: $.shapes: expected a list (is this bench_gemm_shapes --json output?)")
    for i, shape in enumerate(document["shapes"]):
        if not isinstance(shape, dict) or not isinstance(shape.get("results"), dict) or "label" not in shape:
            raise ShapesError(f"{path}: $.shapes[{i}]: expected an object with 'label' and 'results'")
    return document


def gflops(shape: dict, row: str) -> float | None:
    """A row's GFLOP/s at one shape of a document; None where it failed or did not run."""
    value = (shape["results"].get(row) or {}).get("gflops")
    return value if isinstance(value, (int, float)) and value > 0 else None
