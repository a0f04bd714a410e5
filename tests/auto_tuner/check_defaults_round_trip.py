#!/usr/bin/env python3
"""The shape database's round trip: tune JSON -> defaults -> table -> gemm uses the tuned entry.

1. A seed database (TESSERA_GEMM_DEFAULTS) gives each shape of the suite a slow configuration
   (naive, 1x1 work-groups): the default the tuner measures must be it.
2. tune_all --shapes tunes the suite; select_defaults.py writes the winners over the seed exactly
   where the run proved them faster (a seed entry survives only where the run kept the default).
3. defaults_table.py renders the database as the build does.
4. The probe (tests/blas/gemm_round_trip.cpp), with the new database in TESSERA_GEMM_DEFAULTS,
   checks that gemm() takes the tuned entry at each tuned shape and matches OpenBLAS.
Exits 0 when every step holds, 1 naming the step that did not.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SEED = "naive batch_tile=1x1 wg=1x1 batch=strided"


class CheckFailed(Exception):
    pass


def run(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=540, env={**os.environ, **(env or {})})
    if done.returncode != 0:
        raise CheckFailed(f"{' '.join(command)}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("tuner", "info", "probe", "suite", "gen"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="defaults_round_trip."))
    try:
        info = json.loads(run([args.info, "--json"]).stdout)
        device = next(d for d in info["devices"] if d["selected"])["name"]
        shapes = json.loads(Path(args.suite).read_text())["shapes"]
        seed = {"entries": [{"level": "name", "match": device, "element_bytes": 4, "transposes": s["transposes"],
                             "problem": "any", "shape": {"m": s["m"], "n": s["n"], "k": s["k"],
                                                         "batch": s.get("batch", 1)},
                             "configuration": SEED, "origin": "seed"} for s in shapes]}
        database = work / "round_trip.json"
        database.write_text(json.dumps(seed))

        results = work / "run.json"
        gen = Path(args.gen)
        # On a loaded machine a run may fail to prove even 5x by more than the spread of its
        # measurements (the tuner then keeps the default, as it must): tune again, at most 3 times.
        for attempt in range(3):
            run([args.tuner, "--shapes", args.suite, "--budget", "4", "--reps", "3", "--rounds", "9", "--json",
                 str(results)], {"TESSERA_GEMM_DEFAULTS": str(database)})
            runs = json.loads(results.read_text())["runs"]
            for r in runs:
                default = next(x for x in r["results"] if x["kind"] == "default")
                if default["configuration"] != SEED:
                    raise CheckFailed(f"run {r['transposes']} {r['m']}x{r['n']}x{r['k']}: the tuner's default was "
                                      f"{default['configuration']!r}, not the seed database's")
            if any(r["decision"]["verdict"] == "best" for r in runs):
                break
        best = {(r["transposes"], r["m"], r["n"], r["k"], r["batch"]) for r in runs if r["decision"]["verdict"] == "best"}
        if not best:
            raise CheckFailed("three runs in a row proved no configuration faster than naive 1x1 work-groups")

        run([sys.executable, str(gen / "select_defaults.py"), str(results), "--target", "round_trip",
             "--output_dir", str(work)])
        written = json.loads(database.read_text())["entries"]
        for e in written:
            shape = (e["transposes"], e["shape"]["m"], e["shape"]["n"], e["shape"]["k"], e["shape"]["batch"])
            # No regression: replaced exactly where the run proved a configuration faster.
            if (e["configuration"] == SEED) == (shape in best):
                raise CheckFailed(f"{shape}: the run's verdict was {'best' if shape in best else 'default kept'}, "
                                  f"the database holds {e['configuration']!r}")
        if len({(e["transposes"], json.dumps(e["shape"])) for e in written}) != len(shapes):
            raise CheckFailed(f"expected an entry for each of the {len(shapes)} shapes: {written}")

        table = work / "table.def"
        run([sys.executable, str(gen / "defaults_table.py"), str(table), str(database)])
        if table.read_text().count("TESSERA_GEMM_TUNED(") != len(written):
            raise CheckFailed(f"the rendered table does not hold the {len(written)} entries:\n{table.read_text()}")

        run([args.probe], {"TESSERA_GEMM_DEFAULTS": str(database)})
    except (CheckFailed, subprocess.TimeoutExpired, OSError, json.JSONDecodeError, StopIteration) as failure:
        print(f"check_defaults_round_trip: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("check_defaults_round_trip: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
