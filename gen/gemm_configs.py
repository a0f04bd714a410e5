"""Tuning-target JSON files (configs/*.json) as the tuner's generator sees them: reading and
validating them (the schema comes from the parameter table, gemm_params.def) and expanding
each entry into candidate configurations, of which the rules keep the valid ones."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema

from gemm_params import ParamTable
from gemm_rules import RuleTable

FLOAT_BYTES = 4  # the tuner instantiates float kernels (as portBLAS's tuner does)


class ConfigError(Exception):
    """A tuning-target file that cannot be used; the message names the file and the JSON path."""


@dataclass
class Expansion:
    """What a tuning-target file expands to, with the reasons for what was dropped."""

    configs: list = field(default_factory=list)  # GemmConfig, in the order of the file
    candidates: int = 0
    duplicates: int = 0
    rejected_by_rule: Counter = field(default_factory=Counter)  # first broken rule of each rejected config


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


def load_target(path: Path, table: ParamTable) -> dict[str, Any]:
    """Reads and validates a tuning-target file; ConfigError names the file and JSON path."""
    document = parse_json(path)
    validator = _Validator(table.json_schema())
    errors = sorted(validator.iter_errors(document), key=lambda e: (list(e.absolute_path), e.message))
    if errors:
        lines = [f"{path}: {_schema_path(e)}: {e.message}" for e in errors]
        raise ConfigError("\n".join(lines))
    for index, entry in enumerate(document["configurations"]):
        for name in entry:
            param = table.param(name)
            if param is not None and not any(param.applies(f) for f in entry["family"]):
                raise ConfigError(f"{path}: $.configurations[{index}].{name}: {name} applies to "
                                  f"{param.families_text()}, none of this entry's families "
                                  f"({', '.join(entry['family'])})")
    return document


def entries(document: dict[str, Any], table: ParamTable, config_class: type) -> Iterator[tuple[str, list]]:
    """Each entry's JSON path and its candidates, in the file's order."""
    for index, entry in enumerate(document["configurations"]):
        yield f"$.configurations[{index}]", list(table.entry_candidates(entry, config_class))


def expand(document: dict[str, Any], table: ParamTable, rules: RuleTable, limits: dict[str, int], source: str,
           element_bytes: int = FLOAT_BYTES) -> Expansion:
    """Cartesian products of every entry, duplicates removed, invalid configurations dropped.

    An entry none of whose combinations is valid is an error: it names the entry's JSON path
    and the rules that rejected its combinations."""
    result = Expansion()
    seen: set = set()
    for where, candidates in entries(document, table, table.config_class()):
        kept_here = 0
        rejected_here: Counter = Counter()
        for config in candidates:
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
            raise ConfigError(f"{source}: {where}: no valid configuration among "
                              f"{sum(rejected_here.values())} combinations (rejected by {reasons})")
    return result


def summary_lines(expansion: Expansion) -> Iterable[str]:
    yield (f"{len(expansion.configs)} configurations kept of {expansion.candidates} combinations "
           f"({expansion.duplicates} duplicates, {sum(expansion.rejected_by_rule.values())} invalid)")
    for name, count in sorted(expansion.rejected_by_rule.items(), key=lambda kv: (-kv[1], kv[0])):
        yield f"  rejected by {name}: {count}"
