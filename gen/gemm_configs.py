"""GEMM configurations as the tuner's generator sees them: expansion of a tuning-target
JSON file into candidate configurations, and their C++ and text forms."""
from __future__ import annotations

import itertools
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema

from gemm_rules import RuleTable

SCHEMA_FILE = Path(__file__).resolve().parent.parent / "configs" / "schema.json"
FLOAT_BYTES = 4  # the tuner instantiates float kernels (as portBLAS's tuner does)

_NS = "::tessera::blas"


class ConfigError(Exception):
    """A tuning-target file that cannot be used; the message names the file and the JSON path."""


@dataclass(frozen=True, order=True)
class GemmConfig:
    """One kernel configuration; fields mirror tessera::blas::gemm_params."""

    memory: str  # local | no_local
    algorithm: str  # standard | naive
    batch: str  # strided | interleaved
    vectorization: str  # partial | full
    vector_width: int
    cache_line_bytes: int
    item_rows: int
    item_cols: int
    wg_rows: int
    wg_cols: int
    sg_rows: int = 1
    sg_cols: int = 1
    tl_rows: int = 1
    tl_cols: int = 1
    item_batch: int = 1
    wg_batch: int = 1
    double_buffer: bool = False
    no_bank_conflict_a: bool = False
    no_bank_conflict_b: bool = False

    @property
    def family(self) -> str:
        if self.algorithm == "naive":
            return "naive"
        if self.memory == "local":
            return "local"
        return "no_local_full" if self.vectorization == "full" else "no_local"

    def rule_inputs(self, element_bytes: int, limits: dict[str, int]) -> dict[str, int]:
        """The binding of gemm_rules.def's inputs (as make_rule_inputs does in C++)."""
        return {
            "element_bytes": element_bytes,
            "is_naive": int(self.algorithm == "naive"),
            "is_no_local": int(self.algorithm == "standard" and self.memory == "no_local"),
            "is_local": int(self.algorithm == "standard" and self.memory == "local"),
            "is_full_vector": int(self.vectorization == "full"),
            "is_interleaved": int(self.batch == "interleaved"),
            "item_rows": self.item_rows, "item_cols": self.item_cols,
            "wg_rows": self.wg_rows, "wg_cols": self.wg_cols,
            "sg_rows": self.sg_rows, "sg_cols": self.sg_cols,
            "tl_rows": self.tl_rows, "tl_cols": self.tl_cols,
            "item_batch": self.item_batch, "wg_batch": self.wg_batch,
            "cache_line_bytes": self.cache_line_bytes,
            "vector_width": self.vector_width,
            "double_buffer": int(self.double_buffer),
            "no_bank_conflict_a": int(self.no_bank_conflict_a),
            "no_bank_conflict_b": int(self.no_bank_conflict_b),
            **limits,
        }

    def text(self) -> str:
        """The text form tessera::blas::to_string(gemm_params) writes and parse_gemm_params reads."""
        return (f"{self.family} vw={self.vector_width} cls={self.cache_line_bytes} "
                f"item={self.item_rows}x{self.item_cols} wg={self.wg_rows}x{self.wg_cols} "
                f"sg={self.sg_rows}x{self.sg_cols} tl={self.tl_rows}x{self.tl_cols} "
                f"batch_tile={self.item_batch}x{self.wg_batch} db={int(self.double_buffer)} "
                f"nbc_a={int(self.no_bank_conflict_a)} nbc_b={int(self.no_bank_conflict_b)} batch={self.batch}")

    def bench_params(self) -> str:
        """The arguments of one BENCH_PARAMS(MEM, ALG, BATCH, VEC, VW, CLS, TILE, DB, NBCA, NBCB) line."""
        tile = (f"{_NS}::tile<{self.item_rows}, {self.item_cols}, {self.wg_rows}, {self.wg_cols}, {self.sg_rows}, "
                f"{self.sg_cols}, {self.tl_rows}, {self.tl_cols}, {self.item_batch}, {self.wg_batch}>")
        flag = lambda b: "true" if b else "false"  # noqa: E731
        return (f"{_NS}::gemm_memory::{self.memory}, {_NS}::gemm_algorithm::{self.algorithm}, "
                f"{_NS}::gemm_batch_type::{self.batch}, {_NS}::gemm_vectorization::{self.vectorization}, "
                f"{self.vector_width}, {self.cache_line_bytes}, {tile}, {flag(self.double_buffer)}, "
                f"{flag(self.no_bank_conflict_a)}, {flag(self.no_bank_conflict_b)}")

    def file_stem(self) -> str:
        return (f"tune_{self.family}_vw{self.vector_width}_cls{self.cache_line_bytes}_"
                f"i{self.item_rows}x{self.item_cols}_wg{self.wg_rows}x{self.wg_cols}_"
                f"sg{self.sg_rows}x{self.sg_cols}_tl{self.tl_rows}x{self.tl_cols}_"
                f"b{self.item_batch}x{self.wg_batch}_db{int(self.double_buffer)}_"
                f"nbc{int(self.no_bank_conflict_a)}{int(self.no_bank_conflict_b)}_{self.batch}")


@dataclass
class Expansion:
    """What a tuning-target file expands to, with the reasons for what was dropped."""

    configs: list[GemmConfig] = field(default_factory=list)
    candidates: int = 0
    duplicates: int = 0
    rejected_by_rule: Counter = field(default_factory=Counter)  # first broken rule of each rejected config


def _pairs(entry: dict[str, Any], key: str) -> list[tuple[int, int]]:
    return [tuple(p) for p in entry.get(key, [[1, 1]])]


def _local_candidates(entry: dict[str, Any]) -> Iterator[GemmConfig]:
    for cls, item, wg, sg, tl, db, nbca, nbcb, vw in itertools.product(
            entry["cache_line_size"], _pairs(entry, "work_item_sizes"), _pairs(entry, "work_group_sizes"),
            _pairs(entry, "sub_group_sizes"), _pairs(entry, "block_level_tiles"), entry["double_buffer"],
            entry["no_bank_conflict_a"], entry["no_bank_conflict_b"], entry["vectorization_size"]):
        yield GemmConfig("local", "standard", "strided", "partial", vw, cls, *item, *wg, *sg, *tl, 1, 1, db, nbca, nbcb)


def _no_local_candidates(entry: dict[str, Any]) -> Iterator[GemmConfig]:
    for vec, cls, item, wg, sg, tl, vw in itertools.product(
            entry["vectorization"], entry["cache_line_size"], _pairs(entry, "work_item_sizes"),
            _pairs(entry, "work_group_sizes"), _pairs(entry, "sub_group_sizes"), _pairs(entry, "block_level_tiles"),
            entry["vectorization_size"]):
        yield GemmConfig("no_local", "standard", "strided", vec, vw, cls, *item, *wg, *sg, *tl)


def _naive_candidates(entry: dict[str, Any]) -> Iterator[GemmConfig]:
    for wg in _pairs(entry, "work_group_sizes"):
        yield GemmConfig("no_local", "naive", "strided", "partial", 1, 0, 1, 1, *wg)


def _batched_candidates(entry: dict[str, Any]) -> Iterator[GemmConfig]:
    for mem, layout, bt, cls, item, wg, sg, tl, db, nbca, nbcb, vw in itertools.product(
            entry["memory"], entry["batch_type"], _pairs(entry, "batch_sizes"), entry["cache_line_size"],
            _pairs(entry, "work_item_sizes"), _pairs(entry, "work_group_sizes"), _pairs(entry, "sub_group_sizes"),
            _pairs(entry, "block_level_tiles"), entry.get("double_buffer", [False]),
            entry.get("no_bank_conflict_a", [False]), entry.get("no_bank_conflict_b", [False]),
            entry["vectorization_size"]):
        yield GemmConfig(mem, "standard", layout, "partial", vw, cls, *item, *wg, *sg, *tl, *bt, db, nbca, nbcb)


SECTIONS = {
    "local": _local_candidates,
    "no_local": _no_local_candidates,
    "naive": _naive_candidates,
    "batched": _batched_candidates,
}


def _schema_path(error: jsonschema.ValidationError) -> str:
    return _json_path(error.absolute_path)


class _Object(dict):
    """A JSON object that remembers the keys it saw more than once (json keeps the last)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        counts = Counter(key for key, _ in pairs)
        self.repeated_keys = [key for key, count in counts.items() if count > 1]


def _json_path(parts: Iterable[str | int]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _repeated_keys(value: Any, parts: tuple[str | int, ...] = ()) -> Iterator[str]:
    if isinstance(value, _Object):
        for key in value.repeated_keys:
            yield f"{_json_path(parts)}: key '{key}' appears twice"
        for key, item in value.items():
            yield from _repeated_keys(item, parts + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _repeated_keys(item, parts + (index,))


def _is_integer(_checker: Any, instance: Any) -> bool:
    # JSON Schema counts 8.0 as an integer; a generated source would then say tile<8.0, ...>.
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


def parse_json(path: Path) -> Any:
    """The JSON document in path; ConfigError names the file (and line:column or JSON path) when
    it cannot be read, is not UTF-8, is malformed or repeats a key in an object."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: cannot read: not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    try:
        document = json.loads(text, object_pairs_hook=_Object)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    repeated = list(_repeated_keys(document))
    if repeated:
        raise ConfigError("\n".join(f"{path}: {line}" for line in repeated))
    return document


def load_target(path: Path) -> dict[str, Any]:
    """Reads and validates a tuning-target file; ConfigError names the file and JSON path."""
    document = parse_json(path)
    validator = _Validator(json.loads(SCHEMA_FILE.read_text()))
    errors = sorted(validator.iter_errors(document), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        lines = [f"{path}: {_schema_path(e)}: {e.message}" for e in errors]
        raise ConfigError("\n".join(lines))
    return document


def expand(document: dict[str, Any], rules: RuleTable, limits: dict[str, int], source: str,
           element_bytes: int = FLOAT_BYTES) -> Expansion:
    """Cartesian products of every entry, duplicates removed, invalid configurations dropped.

    An entry none of whose combinations is valid is an error: it names the entry's JSON path
    and the rules that rejected its combinations."""
    result = Expansion()
    seen: set[GemmConfig] = set()
    for section, candidates_of in SECTIONS.items():
        for index, entry in enumerate(document.get(section, [])):
            kept_here = 0
            rejected_here: Counter = Counter()
            for config in candidates_of(entry):
                result.candidates += 1
                broken = rules.violations(config.rule_inputs(element_bytes, limits))
                if broken:
                    result.rejected_by_rule[broken[0].name] += 1
                    rejected_here[broken[0].name] += 1
                    continue
                kept_here += 1
                if config in seen:
                    result.duplicates += 1
                    continue
                seen.add(config)
                result.configs.append(config)
            if kept_here == 0:
                reasons = ", ".join(f"{name}: {count}" for name, count in rejected_here.most_common())
                raise ConfigError(f"{source}: $.{section}[{index}]: no valid configuration among "
                                  f"{sum(rejected_here.values())} combinations (rejected by {reasons})")
    return result


def summary_lines(expansion: Expansion) -> Iterable[str]:
    yield (f"{len(expansion.configs)} configurations kept of {expansion.candidates} combinations "
           f"({expansion.duplicates} duplicates, {sum(expansion.rejected_by_rule.values())} invalid)")
    for name, count in sorted(expansion.rejected_by_rule.items(), key=lambda kv: (-kv[1], kv[0])):
        yield f"  rejected by {name}: {count}"
