#!/usr/bin/env python3
"""Expands a tuning-target JSON file into the tuner's generated sources.

Writes generated_combinations.def (one BENCH_PARAMS X-macro line per valid configuration,
behind an #error guard) and one instantiation .cpp per configuration (float, all four
transposes). What a configuration is comes from include/tessera/blas/gemm_params.def, its
validity from that table and include/tessera/blas/gemm_rules.def: the checks the C++
static_asserts make. Output is byte-identical for the same input; files whose content
would not change are not touched, so CMake rebuilds only what changed. Nothing is written
unless the whole input is valid.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jinja2

sys.path.insert(0, str(Path(__file__).resolve().parent))
from atomic_file import FileWriteError, write_text_atomically  # noqa: E402
from gemm_configs import ConfigError, Expansion, expand, load_target, summary_lines  # noqa: E402
from gemm_params import ParamFileError, load_param_table  # noqa: E402
from gemm_rules import RuleFileError, compile_time_limits, load_rule_table  # noqa: E402

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def source_label(config_path: Path) -> str:
    """The config's path as generated files name it: relative to the repository when inside it,
    so that output does not depend on where the checkout lives."""
    root = Path(__file__).resolve().parent.parent
    try:
        return str(config_path.resolve().relative_to(root))
    except ValueError:
        return config_path.name


def render_outputs(expansion: Expansion, source: str, def_path: Path | None,
                   source_dir: Path | None) -> dict[Path, str]:
    outputs: dict[Path, str] = {}
    if def_path is not None:
        outputs[def_path] = TEMPLATES.get_template("generated_combinations.def.j2").render(
            configs=expansion.configs, source=source)
    if source_dir is not None:
        template = TEMPLATES.get_template("config_source.cpp.j2")
        for config in expansion.configs:
            outputs[source_dir / f"{config.file_stem()}.cpp"] = template.render(config=config, source=source)
    return outputs


def ensure_folder(folder: Path) -> None:
    """Creates folder (and its parents) unless it exists; FileWriteError names what is in the way."""
    if folder.is_dir():
        return
    if folder.exists():
        raise FileWriteError(f"{folder}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FileWriteError(f"{folder}: cannot create the folder: {e.strerror or e}") from None


def unchanged(path: Path, text: str) -> bool:
    # Only a regular file of the same size is read: a device such as /dev/zero never ends.
    encoded = text.encode("utf-8")
    try:
        return path.is_file() and path.stat().st_size == len(encoded) and path.read_bytes() == encoded
    except OSError:
        return False


def write_if_changed(path: Path, text: str) -> None:
    if not unchanged(path, text):
        write_text_atomically(path, text)


def write_outputs(outputs: dict[Path, str]) -> None:
    """Every output folder is checked (or created) before the first file is written."""
    for folder in sorted({path.parent for path in outputs}):
        ensure_folder(folder)
    for path, text in outputs.items():
        write_if_changed(path, text)


def remove_stale_sources(source_dir: Path, keep: set[Path]) -> None:
    for stale in source_dir.glob("tune_*.cpp"):
        if stale not in keep:
            stale.unlink()


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path, help="tuning-target JSON file (configs/*.json)")
    parser.add_argument("--def", dest="def_path", type=Path, help="where to write generated_combinations.def")
    parser.add_argument("--source_dir", type=Path, help="where to write one instantiation .cpp per configuration")
    parser.add_argument("--list_files", action="store_true",
                        help="print the .cpp files --source_dir would hold (';'-separated, for CMake) and write nothing")
    parser.add_argument("--quiet", action="store_true", help="do not print the summary")
    args = parser.parse_args(argv)
    if args.list_files and args.source_dir is None:
        parser.error("--list_files needs --source_dir")
    if not args.list_files and args.def_path is None and args.source_dir is None:
        parser.error("nothing to do: give --def, --source_dir or --list_files")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        table = load_param_table()
        rules = load_rule_table(params=table)
        document = load_target(args.config, table)
        expansion = expand(document, table, rules, compile_time_limits(), str(args.config))
    except (ConfigError, ParamFileError, RuleFileError) as e:
        print(f"generate_combinations: error: {e}", file=sys.stderr)
        return 1
    source_dir = args.source_dir.resolve() if args.source_dir else None
    if args.list_files:
        print(";".join(str(source_dir / f"{c.file_stem()}.cpp") for c in expansion.configs))
        return 0
    outputs = render_outputs(expansion, source_label(args.config), args.def_path, source_dir)
    try:
        if source_dir is not None:
            ensure_folder(source_dir)  # even when no configuration is kept, so stale ones go
        write_outputs(outputs)
        if source_dir is not None:
            remove_stale_sources(source_dir, set(outputs))
    except (FileWriteError, OSError) as e:
        print(f"generate_combinations: error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        for line in summary_lines(expansion):
            print(f"generate_combinations: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
