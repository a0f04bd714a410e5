#!/usr/bin/env python3
"""The configurations of a defaults database (configs/defaults/*.json, select_defaults.py's form)
as a tuning set (a TUNING_CONFIG JSON, configs/schema.json's form): one entry per configuration.

A tuner built with it (cmake -DTUNING_CONFIG=...) and run without --budget measures every
configuration the database can pick at every shape of its suites: the measurement matrix that
gen/selection_replay.py --matrix scores the selection rule on, at shapes it did not tune
(scripts/gpu-run.sh selection-matrix).

  python3 gen/database_tuning_set.py DATABASE.json --output SET.json [--element-bytes 4] [--precision default]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from gemm_params import load_param_table  # noqa: E402


class DatabaseError(Exception):
    pass


def configurations(database: dict, element_bytes: int, precision: str) -> list[str]:
    """The distinct configuration texts of the database's entries for these elements and
    precision (entries for any element size included), in the order of first appearance."""
    entries = database.get("entries") if isinstance(database, dict) else None
    if not isinstance(entries, list):
        raise DatabaseError("$.entries: expected a list (is this a defaults file?)")
    seen: list[str] = []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("configuration"), str):
            raise DatabaseError(f"$.entries[{i}]: expected an object with a configuration")
        if e.get("element_bytes") not in (0, element_bytes) or e.get("precision", "default") != precision:
            continue
        if e["configuration"] not in seen:
            seen.append(e["configuration"])
    return seen


def tuning_entry(text: str, table) -> dict:
    """One configuration as a tuning-set entry: its family and every parameter that applies to it."""
    config = table.config_class().from_text(text)
    entry: dict = {"family": [config.family]}
    for param in table.params:
        if not param.applies(config.family):
            continue
        values = config.values(param)
        entry[param.name] = [list(values)] if param.kind == "pair" else [values[0]]
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database", type=Path)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--element-bytes", type=int, default=4, choices=(2, 4, 8))
    parser.add_argument("--precision", default="default", help="the entries' precision (default: exact FP32/FP64)")
    args = parser.parse_args(argv)
    try:
        database = json.loads(args.database.read_text())
        texts = configurations(database, args.element_bytes, args.precision)
        if not texts:
            raise DatabaseError(f"no entry for {args.element_bytes}-byte elements in precision {args.precision}")
        table = load_param_table()
        document = {"description": f"every configuration of {args.database.name} for {args.element_bytes}-byte "
                                   f"elements, {args.precision} precision (gen/database_tuning_set.py)",
                    "configurations": [tuning_entry(t, table) for t in texts]}
        write_text_atomically(args.output, json.dumps(document, indent=1) + "\n")
    except (OSError, json.JSONDecodeError, DatabaseError, ValueError, FileWriteError) as e:
        print(f"database_tuning_set: {args.database}: {e}", file=sys.stderr)
        return 1
    print(f"database_tuning_set: {len(texts)} configurations -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
