#!/usr/bin/env python3
"""Proves that the generator's validity check and the C++ static_asserts agree.

For each tuning-target file, every candidate combination is classified by the generator
(gen/gemm_rules.py over gemm_rules.def). The kept ones must compile as a typed
gemm_kernel_config<...>; the rejected ones must fail to compile, the compiler naming the
rule the generator blamed first. To bound the time, all distinct rejections by rule are
compiled (up to --per-rule of each) and a sample of kept ones. Compiles run in parallel.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "gen"))
from gemm_configs import FLOAT_BYTES, entries, load_target  # noqa: E402
from gemm_params import load_param_table  # noqa: E402
from gemm_rules import compile_time_limits, load_rule_table  # noqa: E402

SOURCE = """#include <tessera/blas/gemm_config.hpp>
using config = tessera::blas::gemm_kernel_config<tessera::blas::gemm_params{{{initializer}}}, false, false, float>;
static_assert(config::params.wg_rows > 0);
"""


def source_for(config) -> str:
    return SOURCE.format(initializer=config.initializer())


def compile_one(compiler: str, include: str, path: Path) -> tuple[int, str]:
    result = subprocess.run([compiler, "-std=c++20", "-fsyntax-only", f"-I{include}", str(path)],
                            capture_output=True, text=True)
    return result.returncode, result.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("targets", type=Path, nargs="+")
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--per-rule", type=int, default=3)
    parser.add_argument("--kept", type=int, default=12)
    args = parser.parse_args()

    table = load_param_table()
    rules, limits = load_rule_table(params=table), compile_time_limits()
    kept, rejected = [], defaultdict(list)
    for target in args.targets:
        document = load_target(target, table)
        for _, candidates in entries(document, table, table.config_class()):
            for config in candidates:
                broken = rules.violations(config.rule_inputs(FLOAT_BYTES, limits))
                (rejected[broken[0].name] if broken else kept).append(config)
    cases = [(c, None) for c in sorted(set(kept))[:: max(1, len(set(kept)) // args.kept)]]
    for rule, configs in sorted(rejected.items()):
        cases += [(c, rule) for c in sorted(set(configs))[: args.per_rule]]
    args.work.mkdir(parents=True, exist_ok=True)
    args.work = Path(tempfile.mkdtemp(prefix="run.", dir=args.work))  # two runs at once share no file
    paths = []
    for i, (config, _) in enumerate(cases):
        path = args.work / f"case_{i}.cpp"
        path.write_text(source_for(config))
        paths.append(path)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda p: compile_one(args.compiler, args.include, p), paths))
    shutil.rmtree(args.work, ignore_errors=True)
    for (config, rule), (status, stderr) in zip(cases, outcomes):
        if rule is None and status != 0:
            failures.append(f"kept but does not compile: {config.text()}\n{stderr[:2000]}")
        if rule is not None and status == 0:
            failures.append(f"rejected by {rule} but compiles: {config.text()}")
        if rule is not None and status != 0 and f"tessera gemm rule '{rule}'" not in stderr:
            failures.append(f"rejected by {rule}, but the compiler names another rule: {config.text()}")
    print(f"{len(cases)} configurations compiled: {sum(r is None for _, r in cases)} kept, "
          f"{sum(r is not None for _, r in cases)} rejected, by {len(rejected)} rules: {', '.join(sorted(rejected))}")
    for failure in failures:
        print("MISMATCH:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
