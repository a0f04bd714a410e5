"""The GEMM validity rules, read from the one place they are written.

include/tessera/blas/gemm_rules.def holds every rule as an X-macro line; the C++ side
expands it into static_asserts and a run-time check, after the checks the parameter table
(gemm_params.def) generates. This module reads the same lines and evaluates the same
expressions, in the same order, so the generator keeps exactly the configurations the
compiler accepts (tests/auto_tuner and gen/tests prove the two agree).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Union

from gemm_params import Check, ParamTable, load_param_table

REPO_ROOT = Path(__file__).resolve().parent.parent
RULES_FILE = REPO_ROOT / "include" / "tessera" / "blas" / "gemm_rules.def"
CONFIG_HEADER = REPO_ROOT / "include" / "tessera" / "blas" / "gemm_config.hpp"

_LINE = re.compile(r"^TESSERA_GEMM_(INPUT|DERIVED|RULE)\((\w+),\s*(.*)\)\s*$")
_RULE_TAIL = re.compile(r'^(.*),\s*"([^"\\]*)"$')
_LIMITS = re.compile(r"compile_time_limits\{\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\}")


class RuleFileError(Exception):
    """gemm_rules.def (or the header) does not follow the grammar it documents."""


@dataclass(frozen=True)
class Rule:
    name: str
    expression: str
    message: str
    code: object  # compiled Python expression

    def holds(self, values: Mapping[str, int]) -> bool:
        return bool(eval(self.code, {"__builtins__": {}}, dict(values)))  # noqa: S307 (checked grammar)


@dataclass(frozen=True)
class RuleTable:
    bound_inputs: tuple[str, ...]  # bound from the configuration (gemm_params.def)
    inputs: tuple[str, ...]  # TESSERA_GEMM_INPUT lines
    derived: tuple[tuple[str, object], ...]
    checks: tuple[Check, ...]  # generated from gemm_params.def, checked before the rules
    rules: tuple[Rule, ...]

    def evaluate(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """All inputs and derived values for one binding of the inputs."""
        names = self.bound_inputs + self.inputs
        missing = [name for name in names if name not in inputs]
        if missing:
            raise KeyError(f"rule inputs not bound: {', '.join(missing)}")
        values = {name: int(inputs[name]) for name in names}
        for name, code in self.derived:
            values[name] = int(eval(code, {"__builtins__": {}}, values))  # noqa: S307 (checked grammar)
        return values

    def violations(self, inputs: Mapping[str, int]) -> list[Union[Check, Rule]]:
        """The checks and rules broken by this binding, in the order C++ checks them."""
        values = self.evaluate(inputs)
        return [check for check in self.checks + self.rules if not check.holds(values)]


_ALLOWED_NODES = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Load,
                  ast.Constant, ast.And, ast.Or, ast.Not, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod,
                  ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.USub)


def _compile(expression: str, known: set[str], where: str) -> object:
    # C++ `/` on integers truncates; every divisor in the file is positive, so // agrees.
    python = expression.replace("/", "//")
    try:
        tree = ast.parse(python, mode="eval")
    except SyntaxError as e:
        raise RuleFileError(f"{where}: cannot read expression '{expression}': {e.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise RuleFileError(f"{where}: '{expression}' uses {type(node).__name__}, outside the grammar")
        if isinstance(node, ast.Compare) and len(node.ops) != 1:
            raise RuleFileError(f"{where}: '{expression}' chains comparisons, which C++ reads differently")
        if isinstance(node, ast.Name) and node.id not in known:
            raise RuleFileError(f"{where}: '{expression}' uses '{node.id}' before it is defined")
        if isinstance(node, ast.Constant) and not isinstance(node.value, int):
            raise RuleFileError(f"{where}: '{expression}' has a non-integer literal")
    return compile(tree, where, "eval")


def load_rule_table(path: Path = RULES_FILE, params: ParamTable | None = None) -> RuleTable:
    """The rules of path, over the inputs the parameter table binds (default: the repository's)."""
    params = params if params is not None else load_param_table()
    bound = tuple(params.bound_input_names())
    inputs: list[str] = []
    derived: list[tuple[str, object]] = []
    rules: list[Rule] = []
    known: set[str] = set(bound)
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        where = f"{path.name}:{number}"
        match = _LINE.match(line)
        if not match:
            raise RuleFileError(f"{where}: not a TESSERA_GEMM_INPUT/DERIVED/RULE line: {line}")
        kind, name, rest = match.groups()
        if name in known:
            raise RuleFileError(f"{where}: '{name}' is defined twice")
        if kind == "INPUT":
            inputs.append(name)
            known.add(name)
        elif kind == "DERIVED":
            derived.append((name, _compile(rest, known, where)))
            known.add(name)
        else:
            tail = _RULE_TAIL.match(rest)
            if not tail:
                raise RuleFileError(f"{where}: a rule ends with its message as a string literal")
            expression, message = tail.groups()
            rules.append(Rule(name, expression.strip(), message, _compile(expression, known, where)))
    if not rules:
        raise RuleFileError(f"{path}: no rules found")
    return RuleTable(bound, tuple(inputs), tuple(derived), tuple(params.checks()), tuple(rules))


def compile_time_limits(header: Path = CONFIG_HEADER) -> dict[str, int]:
    """The device limits the C++ static_asserts use (gemm_config.hpp's compile_time_limits)."""
    match = _LIMITS.search(header.read_text())
    if not match:
        raise RuleFileError(
            f"{header}: compile_time_limits{{local, work-group, tensor cores, mma local}} not found")
    return {"max_local_memory_bytes": int(match.group(1)), "max_work_group_size": int(match.group(2)),
            "tensor_cores": int(match.group(3)), "mma_max_local_memory_bytes": int(match.group(4))}
