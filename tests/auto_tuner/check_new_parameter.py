#!/usr/bin/env python3
"""Shows what adding a GEMM parameter takes in C++: its line in gemm_params.def.

Copies include/ aside, adds issue 12's split_k to the copy of the table (the line of
tools/auto_tuner/README.md's walk-through), and builds the library's configuration code
(src/blas/gemm_params.cpp, gemm_rules.cpp) and the tuner's search against it, unchanged:
gemm_params gains the field, the text form reads and writes it, the kernel gets -DSPLIT_K,
the search compares it, the generated checks reject a value outside its allowed ones and a
value other than its unused one in a family it does not apply to, at run time and at
compile time. (The kernel using it, and rules relating it to other parameters, are the other
two files a real parameter touches.) gen/tests/test_gemm_params.py shows the Python side.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPLIT_K = 'TESSERA_GEMM_INT(split_k, 1, 1, "local", "1 2 4 8", "work-groups that share one output tile along K")'

PROGRAM = r"""
#include <tessera/blas/gemm_config.hpp>
#include "search.hpp"
#include <cstdio>
namespace blas = tessera::blas;

using config = blas::gemm_kernel_config<blas::gemm_params{.family = blas::gemm_family::local, .split_k = SPLIT_K_VALUE},
                                        false, false, float>;

int main() {
  const blas::gemm_params p = blas::parse_gemm_params("local split_k=4");
  std::printf("field: %d\n", p.split_k);
  std::printf("text: %s\n", blas::to_string(p).c_str());
  std::printf("defines: %s\n", blas::kernel_defines(p, 4).c_str());
  std::printf("features: %zu of %zu parameters\n", tessera::auto_tuner::search_features(p).size() - 1,
              std::size(blas::gemm_param_table));
  for (const char* text : {"local split_k=3", "naive wg=8x8 split_k=2"})
    for (const auto& v : blas::check_gemm_rules(blas::parse_gemm_params(text), 4))
      std::printf("broken: %s: %.*s\n", text, int(v.rule.size()), v.rule.data());
  return config::params == p ? 0 : 1;
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compiler", required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()

    # A folder of its own per run, so that two runs at once do not share files.
    args.work.mkdir(parents=True, exist_ok=True)
    args.work = Path(tempfile.mkdtemp(prefix="run.", dir=args.work))
    try:
        return check(args)
    finally:
        shutil.rmtree(args.work, ignore_errors=True)


def check(args: argparse.Namespace) -> int:
    include = args.work / "include"
    shutil.copytree(ROOT / "include", include)
    table = include / "tessera" / "blas" / "gemm_params.def"
    text = table.read_text()
    anchor = "TESSERA_GEMM_CHOICE(batch,"
    if anchor not in text:
        print(f"check_new_parameter: {table}: no line starting with {anchor}", file=sys.stderr)
        return 1
    table.write_text(text.replace(anchor, SPLIT_K + "\n" + anchor))

    def build(value: int, output: Path) -> subprocess.CompletedProcess:
        program = args.work / f"split_k_{value}.cpp"
        program.write_text(PROGRAM.replace("SPLIT_K_VALUE", str(value)))
        command = [args.compiler, "-std=c++20", "-O0", f"-I{include}", f"-I{ROOT / 'tools' / 'auto_tuner'}",
                   str(program), str(ROOT / "src" / "blas" / "gemm_params.cpp"),
                   str(ROOT / "src" / "blas" / "gemm_rules.cpp"), str(ROOT / "tools" / "auto_tuner" / "search.cpp"),
                   "-lfmt", "-o", str(output)]
        return subprocess.run(command, capture_output=True, text=True)

    failures = []
    built = build(4, args.work / "split_k")
    if built.returncode != 0:
        print(built.stderr[-4000:])
        return 1
    run = subprocess.run([str(args.work / "split_k")], capture_output=True, text=True)
    print(run.stdout, end="")
    expected = ["field: 4", "vector_width=1 split_k=4 batch=strided", "-DSPLIT_K=4",
                "broken: local split_k=3: split_k_allowed", "broken: naive wg=8x8 split_k=2: split_k_applies"]
    for line in expected:
        if line not in run.stdout:
            failures.append(f"missing from the program's output: {line!r}")
    features = [line for line in run.stdout.splitlines() if line.startswith("features: ")]
    if not features or features[0].split()[1] != features[0].split()[3]:
        failures.append("the search's features do not cover every parameter")
    if run.returncode != 0:
        failures.append("the typed configuration differs from the parsed one")
    rejected = build(3, args.work / "split_k_3")
    if rejected.returncode == 0 or "tessera gemm rule 'split_k_allowed'" not in rejected.stderr:
        failures.append("a typed configuration with split_k = 3 compiled, or without naming split_k_allowed")
    else:
        print("compile time: split_k = 3 fails with tessera gemm rule 'split_k_allowed'")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
