#!/usr/bin/env python3
"""The GEMM parameter table, read from the one place it is written.

include/tessera/blas/gemm_params.def lists the kernel families and the parameters (name,
fields, default, the value where a parameter does not apply, allowed values, meaning); its
header gives the grammar, which this module reads as strictly as the C++ preprocessor does.
From the table come, here, everything the generator knows about a configuration: GemmConfig
(the Python twin of tessera::blas::gemm_params: text form, rule inputs, the C++ initializer of
a typed configuration, a file name), the checks of allowed and unused values (before
gemm_rules.def's rules), the candidates of a tuning-target entry and the JSON schema of
tuning-target files (configs/schema.json, which `gemm_params.py --schema FILE` writes).
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

REPO_ROOT = Path(__file__).resolve().parent.parent
PARAMS_FILE = REPO_ROOT / "include" / "tessera" / "blas" / "gemm_params.def"
SCHEMA_FILE = REPO_ROOT / "configs" / "schema.json"

_NS = "::tessera::blas"
_NAME = r"[a-z_][a-z0-9_]*"
_STRING = r'"([^"\\]*)"'
_INT = r"(-?[0-9]+)"
_LINES = {
    "FAMILY": re.compile(rf"^TESSERA_GEMM_FAMILY\(({_NAME}), {_STRING}, {_STRING}\)$"),
    "INT": re.compile(rf"^TESSERA_GEMM_INT\(({_NAME}), {_INT}, {_INT}, {_STRING}, {_STRING}, {_STRING}\)$"),
    "BOOL": re.compile(rf"^TESSERA_GEMM_BOOL\(({_NAME}), ([01]), ([01]), {_STRING}, {_STRING}\)$"),
    "PAIR": re.compile(rf"^TESSERA_GEMM_PAIR\(({_NAME}), ({_NAME}), ({_NAME}), {_INT}, {_INT}, {_INT}, {_INT}, "
                       rf"{_STRING}, {_STRING}, {_STRING}\)$"),
    "CHOICE": re.compile(rf"^TESSERA_GEMM_CHOICE\(({_NAME}), ({_NAME}), ({_NAME}), ({_NAME}), {_STRING}, {_STRING}, "
                         rf"({_NAME}(?:, {_NAME})*)\)$"),
    "FORMER_KEY": re.compile(rf"^TESSERA_GEMM_FORMER_KEY\(({_NAME}), ({_NAME})\)$"),
}
_ALLOWED = re.compile(r"^(>= -?[0-9]+|-?[0-9]+( -?[0-9]+)*)$")
MAX_CHOICE_VALUES = 8  # TESSERA_GEMM_FOR_EACH_VALUE in gemm_config.hpp


class ParamFileError(Exception):
    """gemm_params.def does not follow the grammar it documents; names the line."""


Value = int | bool | str


@dataclass(frozen=True)
class Family:
    name: str
    source: str
    meaning: str


@dataclass(frozen=True)
class Param:
    """One parameter. Values: an int, a bool, a choice's value name, or a pair's two ints."""

    name: str
    kind: str  # int | bool | pair | choice
    fields: tuple[str, ...]  # a pair's two, else (name,)
    default: tuple[Value, ...]  # per field
    unused: tuple[Value, ...]  # per field: the value where the parameter does not apply
    families: tuple[str, ...] | None  # None: all
    allowed: str  # "v v v", ">= n", or "" (booleans, choices)
    meaning: str
    values: tuple[str, ...] = ()  # a choice's values
    cpp_type: str = ""  # a choice's enum class

    def applies(self, family: str) -> bool:
        return self.families is None or family in self.families

    def value_of(self, family: str) -> tuple[Value, ...]:
        """Per field: the default where the parameter applies, else its unused value."""
        return self.default if self.applies(family) else self.unused

    def allows(self, number: int) -> bool:
        if not self.allowed:
            return True
        if self.allowed.startswith(">="):
            return number >= int(self.allowed[2:])
        return number in {int(v) for v in self.allowed.split()}

    def families_text(self) -> str:
        return "all" if self.families is None else " ".join(self.families)

    def unused_text(self) -> str:
        return "x".join(str(int(v)) if isinstance(v, bool) else str(v) for v in self.unused)


@dataclass(frozen=True)
class Check:
    """A check generated from the table: a parameter's allowed values or its unused value."""

    name: str
    message: str
    holds: Callable[[Mapping[str, int]], bool]


class _ConfigBase:
    """Methods of GemmConfig; the fields (family, then each parameter's) come from the table."""

    _table: ParamTable

    @classmethod
    def make(cls, family: str, **values: Value) -> Any:
        """A configuration of family: the given fields, the table's values for the others."""
        table = cls._table
        if family not in table.family_names():
            raise ValueError(f"unknown family '{family}' (the families: {', '.join(table.family_names())})")
        fields = {"family": family}
        for param in table.params:
            fields.update(zip(param.fields, param.value_of(family)))
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ValueError(f"unknown fields: {', '.join(unknown)}")
        fields.update(values)
        return cls(**fields)

    @classmethod
    def from_text(cls, text: str) -> Any:
        """The inverse of text(), as tessera::blas::parse_gemm_params reads it (former keys too)."""
        table = cls._table
        words = text.split()
        if not words:
            raise ValueError(f"gemm configuration is empty: expected a family ({', '.join(table.family_names())})")

        def bad(word: str, why: str) -> ValueError:
            return ValueError(f"gemm configuration '{text}': cannot read '{word}': {why}")

        if words[0] not in table.family_names():
            raise bad(words[0], f"the first word is the family: {', '.join(table.family_names())}")
        values: dict[str, Value] = {}
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq:
                raise bad(word, "expected key=value")
            param = table.param(table.former_keys.get(key, key))
            if param is None:
                raise bad(word, f"unknown key (the keys: {', '.join(p.name for p in table.params)})")
            try:
                values.update(zip(param.fields, param_value_from_text(param, value)))
            except ValueError as e:
                raise bad(word, str(e)) from None
        return cls.make(words[0], **values)

    def values(self, param: Param) -> tuple[Value, ...]:
        return tuple(getattr(self, f) for f in param.fields)

    def text(self) -> str:
        """The text form tessera::blas::to_string(gemm_params) writes and parse_gemm_params reads."""
        words = [self.family]
        for param in self._table.params:
            values = self.values(param)
            if param.applies(self.family) or values != param.unused:
                words.append(f"{param.name}={param_value_text(param, values)}")
        return " ".join(words)

    def initializer(self) -> str:
        """The designated initializers of this configuration's gemm_params, every field explicit."""
        parts = [f".family = {_NS}::gemm_family::{self.family}"]
        for param in self._table.params:
            for field, value in zip(param.fields, self.values(param)):
                if param.kind == "choice":
                    text = f"{_NS}::{param.cpp_type}::{value}"
                elif param.kind == "bool":
                    text = "true" if value else "false"
                else:
                    text = str(value)
                parts.append(f".{field} = {text}")
        return ", ".join(parts)

    def bench_params(self) -> str:
        """The arguments of one BENCH_PARAMS(TEXT, ...) line: the text form, then the initializer."""
        return f'"{self.text()}", {self.initializer()}'

    def file_stem(self) -> str:
        return "tune_" + self.text().replace("=", "").replace(" ", "_")

    def rule_inputs(self, element_bytes: int, limits: Mapping[str, int]) -> dict[str, int]:
        """The binding of the rule inputs (as make_rule_inputs does in C++)."""
        inputs = self._table.bound_inputs(self)
        inputs["element_bytes"] = element_bytes
        inputs.update(limits)
        return inputs


def param_value_text(param: Param, values: tuple[Value, ...]) -> str:
    if param.kind == "pair":
        return f"{values[0]}x{values[1]}"
    if param.kind == "bool":
        return str(int(values[0]))
    return str(values[0])


def _text_int(text: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError("expected an integer")
    return int(text)


def param_value_from_text(param: Param, text: str) -> tuple[Value, ...]:
    if param.kind == "int":
        return (_text_int(text),)
    if param.kind == "bool":
        if text in ("1", "true"):
            return (True,)
        if text in ("0", "false"):
            return (False,)
        raise ValueError("expected 0 or 1")
    if param.kind == "pair":
        first, x, second = text.partition("x")
        if not x:
            raise ValueError("expected ROWSxCOLS")
        return (_text_int(first), _text_int(second))
    if text not in param.values:
        raise ValueError(f"expected one of {', '.join(param.values)}")
    return (text,)


@dataclass
class ParamTable:
    families: tuple[Family, ...]
    params: tuple[Param, ...]
    former_keys: dict[str, str]
    _config_class: type | None = dataclasses.field(default=None, repr=False, compare=False)

    def family_names(self) -> list[str]:
        return [f.name for f in self.families]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def field_names(self) -> list[str]:
        return [f for p in self.params for f in p.fields]

    def config_class(self) -> type:
        """GemmConfig for this table: a frozen, ordered dataclass with a field `family` and each
        parameter's fields (one class per table, so that its configurations compare equal)."""
        if self._config_class is None:
            fields = [("family", str)] + [(f, Any) for f in self.field_names()]
            self._config_class = dataclasses.make_dataclass(
                "GemmConfig", fields, bases=(_ConfigBase,), frozen=True, order=True, namespace={"_table": self})
        return self._config_class

    # ---- rule inputs and checks, in the order of gemm_config.hpp ----------------------------

    def bound_inputs(self, config: Any) -> dict[str, int]:
        """is_<family>, every field and <choice>_is_<value> (detail/gemm_bound_inputs.inc)."""
        inputs = {f"is_{f.name}": int(config.family == f.name) for f in self.families}
        for param in self.params:
            if param.kind == "choice":
                inputs.update({f"{param.name}_is_{v}": int(getattr(config, param.name) == v) for v in param.values})
            else:
                inputs.update({f: int(getattr(config, f)) for f in param.fields})
        return inputs

    def bound_input_names(self) -> list[str]:
        names = [f"is_{f.name}" for f in self.families]
        for param in self.params:
            if param.kind == "choice":
                names += [f"{param.name}_is_{v}" for v in param.values]
            else:
                names += list(param.fields)
        return names

    def family_of(self, values: Mapping[str, int]) -> str:
        return next((f.name for f in self.families if values[f"is_{f.name}"]), self.families[0].name)

    def checks(self) -> list[Check]:
        """Each parameter's <name>_allowed and <name>_applies (detail/gemm_checks.inc)."""
        checks = []
        for p in self.params:
            if p.kind != "choice":
                allowed = "0 1" if p.kind == "bool" else p.allowed
                checks.append(Check(f"{p.name}_allowed", f"allowed values of {p.name}: {allowed}",
                                    lambda v, p=p: all(_allows(p, v[f]) for f in p.fields)))
            checks.append(Check(f"{p.name}_applies",
                                f"{p.name} applies to {p.families_text()} only; elsewhere it is {p.unused_text()}",
                                lambda v, p=p: p.applies(self.family_of(v)) or _holds_unused(p, v)))
        return checks

    # ---- tuning-target files ---------------------------------------------------------------

    def entry_candidates(self, entry: Mapping[str, Any], config_class: type) -> Iterator[Any]:
        """The cartesian product of one tuning-target entry: for each of its families, every
        combination of the listed values, in table order (the last parameter varies fastest);
        a parameter not listed takes its default (its unused value where it does not apply)."""
        for family in entry["family"]:
            lists = []
            for param in self.params:
                if param.name in entry:
                    lists.append([_json_value(param, v) for v in entry[param.name]])
                else:
                    lists.append([param.value_of(family)])
            for combination in itertools.product(*lists):
                fields = {f: v for param, values in zip(self.params, combination) for f, v in zip(param.fields, values)}
                yield config_class(family=family, **fields)

    def json_schema(self) -> dict[str, Any]:
        """The schema of tuning-target files: configs/schema.json."""
        properties: dict[str, Any] = {
            "family": {"description": "the kernel families; " + "; ".join(f"{f.name}: {f.meaning}"
                                                                          for f in self.families),
                       "type": "array", "minItems": 1, "items": {"enum": self.family_names()}},
        }
        for p in self.params:
            default = param_value_text(p, p.default)
            where = "every family" if p.families is None else ", ".join(p.families)
            description = f"{p.meaning}. Applies to {where}; default {default}"
            if p.families is not None:
                description += f", elsewhere {p.unused_text()}"
            properties[p.name] = {"description": description, "type": "array", "minItems": 1,
                                  "items": _item_schema(p)}
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://tessera.invalid/configs/schema.json",
            "title": "tessera GEMM tuning target",
            "description": ("Generated from include/tessera/blas/gemm_params.def by gen/gemm_params.py --schema: "
                            "do not edit. Each entry of configurations lists values per parameter; the generator "
                            "(gen/generate_combinations.py) expands its cartesian product for each listed family and "
                            "keeps the valid configurations. A parameter left out takes its default."),
            "type": "object",
            "additionalProperties": False,
            "required": ["configurations"],
            "properties": {
                "description": {"type": "string"},
                "configurations": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/entry"}},
            },
            "$defs": {"entry": {"type": "object", "additionalProperties": False, "required": ["family"],
                                "properties": properties}},
        }


def _allows(p: Param, value: int) -> bool:
    return value in (0, 1) if p.kind == "bool" else p.allows(value)


def _holds_unused(p: Param, values: Mapping[str, int]) -> bool:
    if p.kind == "choice":
        return values[f"{p.name}_is_{p.unused[0]}"] == 1
    return all(values[f] == int(u) for f, u in zip(p.fields, p.unused))


def _int_schema(p: Param) -> dict[str, Any]:
    if p.allowed.startswith(">="):
        return {"type": "integer", "minimum": int(p.allowed[2:])}
    return {"type": "integer", "enum": [int(v) for v in p.allowed.split()]}


def _item_schema(p: Param) -> dict[str, Any]:
    if p.kind == "int":
        return _int_schema(p)
    if p.kind == "bool":
        return {"type": "boolean"}
    if p.kind == "pair":
        return {"type": "array", "minItems": 2, "maxItems": 2, "items": _int_schema(p)}
    return {"enum": list(p.values)}


def _json_value(param: Param, value: Any) -> tuple[Value, ...]:
    return tuple(value) if param.kind == "pair" else (value,)


def _check_allowed(text: str, where: str) -> str:
    if text and not _ALLOWED.match(text):
        raise ParamFileError(f"{where}: allowed values are 'v v v' or '>= n', not '{text}'")
    return text


def _families(text: str, known: list[str], where: str) -> tuple[str, ...] | None:
    if text == "all":
        return None
    names = tuple(text.split())
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        raise ParamFileError(f"{where}: families are 'all' or names of families above, not '{text}'")
    return names


def load_param_table(path: Path = PARAMS_FILE) -> ParamTable:
    families: list[Family] = []
    params: list[Param] = []
    former: dict[str, str] = {}
    seen: set[str] = set()

    def define(name: str, where: str) -> None:
        if name in seen:
            raise ParamFileError(f"{where}: '{name}' is defined twice")
        seen.add(name)

    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ParamFileError(f"{path}: cannot read: {e}") from None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("//") or line.startswith("#"):
            continue
        where = f"{path.name}:{number}"
        kind, match = next(((k, m) for k, r in _LINES.items() if (m := r.match(line))), (None, None))
        if match is None:
            raise ParamFileError(f"{where}: not an entry of the grammar: {line}")
        g = match.groups()
        names = [f.name for f in families]
        if kind == "FAMILY":
            define(g[0], where)
            families.append(Family(g[0], g[1], g[2]))
            continue
        if kind == "FORMER_KEY":
            if g[0] in former or g[0] in seen:
                raise ParamFileError(f"{where}: '{g[0]}' is already a key")
            former[g[0]] = g[1]
            continue
        if not families:
            raise ParamFileError(f"{where}: the families come before the parameters")
        define(g[0], where)
        if kind == "INT":
            param = Param(g[0], "int", (g[0],), (int(g[1]),), (int(g[2]),), _families(g[3], names, where),
                          _check_allowed(g[4], where), g[5])
        elif kind == "BOOL":
            param = Param(g[0], "bool", (g[0],), (g[1] == "1",), (g[2] == "1",), _families(g[3], names, where), "",
                          g[4])
        elif kind == "PAIR":
            define(g[1], where)
            define(g[2], where)
            param = Param(g[0], "pair", (g[1], g[2]), (int(g[3]), int(g[4])), (int(g[5]), int(g[6])),
                          _families(g[7], names, where), _check_allowed(g[8], where), g[9])
        else:
            values = tuple(v.strip() for v in g[6].split(","))
            if len(values) > MAX_CHOICE_VALUES or len(set(values)) != len(values):
                raise ParamFileError(f"{where}: a choice has at most {MAX_CHOICE_VALUES} distinct values")
            if g[2] not in values or g[3] not in values:
                raise ParamFileError(f"{where}: the default and unused values are among the values {values}")
            param = Param(g[0], "choice", (g[0],), (g[2],), (g[3],), _families(g[4], names, where), "", g[5],
                          values, g[1])
        if param.families is None and param.unused != param.default:
            raise ParamFileError(f"{where}: a parameter of every family has unused = default")
        params.append(param)
    for key, name in former.items():
        if not any(p.name == name for p in params):
            raise ParamFileError(f"{path}: former key '{key}' names '{name}', which is not a parameter")
    if not families or not params:
        raise ParamFileError(f"{path}: no families or no parameters found")
    return ParamTable(tuple(families), tuple(params), former)


_loaded: dict[str, Any] = {}


def __getattr__(name: str) -> Any:
    """TABLE and GemmConfig: the repository's table, read on first use (so that a broken table
    is reported where it is loaded, as a ParamFileError naming the line, not at import)."""
    if name not in ("TABLE", "GemmConfig"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if not _loaded:
        table = load_param_table()
        _loaded.update(TABLE=table, GemmConfig=table.config_class())
    return _loaded[name]


def schema_text(table: ParamTable) -> str:
    return json.dumps(table.json_schema(), indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", type=Path, metavar="FILE",
                        help=f"write the JSON schema of tuning-target files (the committed one: {SCHEMA_FILE})")
    args = parser.parse_args(argv)
    if args.schema is None:
        parser.error("nothing to do: give --schema FILE")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from atomic_file import FileWriteError, write_text_atomically  # noqa: E402 (gen/ on the path)
    try:
        write_text_atomically(args.schema, schema_text(load_param_table()))
    except (FileWriteError, ParamFileError) as e:
        print(f"gemm_params: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
