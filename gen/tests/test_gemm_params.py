"""The parameter table (gemm_params.def) and its Python consumers: the model (GemmConfig),
its text form, rule inputs and C++ initializer, the generated checks, the schema of
tuning-target files; and what adding a parameter takes (its table line alone)."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

import gemm_params
from gemm_configs import expand
from gemm_params import PARAMS_FILE, SCHEMA_FILE, ParamFileError, load_param_table, param_value_text
from gemm_rules import RULES_FILE, compile_time_limits, load_rule_table

REPO = Path(__file__).resolve().parents[2]
TABLE = gemm_params.TABLE
GemmConfig = gemm_params.GemmConfig
LIMITS = compile_time_limits()


def fields_in_file(path: Path = PARAMS_FILE) -> list[str]:
    """The fields the file declares, read with a plain regex (not the parser under test)."""
    fields = []
    for line in path.read_text().splitlines():
        if m := re.match(r"^TESSERA_GEMM_(INT|BOOL|CHOICE)\((\w+),", line):
            fields.append(m.group(2))
        elif m := re.match(r"^TESSERA_GEMM_PAIR\(\w+, (\w+), (\w+),", line):
            fields += [m.group(1), m.group(2)]
    return fields


def other_value(param, value):
    """Another allowed value of one field."""
    if param.kind == "bool":
        return not value
    if param.kind == "choice":
        return param.values[(param.values.index(value) + 1) % len(param.values)]
    return next(v for v in range(value + 1, value + 1000) if param.allows(v))


# ---- every consumer knows exactly the parameters of the file ------------------------------

def test_the_model_has_exactly_the_fields_of_the_file():
    assert [f.name for f in dataclasses.fields(GemmConfig)] == ["family"] + fields_in_file()


def test_the_committed_schema_is_the_one_the_table_generates():
    # configs/schema.json is what editors and users see; `gen/gemm_params.py --schema` writes it.
    committed = json.loads(SCHEMA_FILE.read_text())
    assert committed == TABLE.json_schema(), "run: python3 gen/gemm_params.py --schema configs/schema.json"
    keys = list(committed["$defs"]["entry"]["properties"])
    assert keys == ["family"] + [p.name for p in TABLE.params]


@pytest.mark.parametrize("family", [f.name for f in TABLE.families])
def test_text_round_trips_every_parameter(family):
    base = GemmConfig.make(family)
    assert GemmConfig.from_text(base.text()) == base
    for param in TABLE.params:
        assert (f" {param.name}=" in base.text()) == param.applies(family), (param.name, base.text())
        for field in param.fields:
            changed = dataclasses.replace(base, **{field: other_value(param, getattr(base, field))})
            assert GemmConfig.from_text(changed.text()) == changed, changed.text()
            assert f" {param.name}=" in changed.text()


def test_rule_inputs_and_the_initializer_carry_every_field():
    base = GemmConfig.make("local")
    for param in TABLE.params:
        for field in param.fields:
            changed = dataclasses.replace(base, **{field: other_value(param, getattr(base, field))})
            assert changed.rule_inputs(4, LIMITS) != base.rule_inputs(4, LIMITS), field
            assert f".{field} = " in changed.initializer()
    # Designated initializers must follow the struct's order: the file's.
    assert re.findall(r"\.(\w+) = ", base.initializer()) == ["family"] + fields_in_file()


def test_each_generated_check_rejects_what_it_names():
    rules = load_rule_table()
    for param in TABLE.params:
        for family in TABLE.family_names():
            if param.applies(family):
                continue
            config = GemmConfig.make(family)
            field = param.fields[0]
            changed = dataclasses.replace(config, **{field: other_value(param, getattr(config, field))})
            broken = [r.name for r in rules.violations(changed.rule_inputs(4, LIMITS))]
            assert broken[:1] == [f"{param.name}_applies"], (changed.text(), broken)
        if param.kind in ("int", "pair"):
            inputs = GemmConfig.make("local").rule_inputs(4, LIMITS)
            inputs[param.fields[0]] = next(v for v in range(-1, -100, -1) if not param.allows(v))
            assert [r.name for r in rules.violations(inputs)][:1] == [f"{param.name}_allowed"]
    assert {c.name for c in rules.checks} == {f"{p.name}_{what}" for p in TABLE.params
                                               for what in ("allowed", "applies")
                                               if what == "applies" or p.kind != "choice"}


# ---- text written before the table ---------------------------------------------------------

def test_former_keys_and_the_former_full_form_are_read():
    old = GemmConfig.from_text("local vw=4 cls=32 item=8x8 wg=16x16 sg=4x8 tl=1x1 batch_tile=1x1 db=1 nbc_a=0 "
                               "nbc_b=1 batch=strided")
    assert old == GemmConfig.make("local", vector_width=4, cache_line_bytes=32, item_rows=8, item_cols=8,
                                  wg_rows=16, wg_cols=16, sg_rows=4, sg_cols=8, double_buffer=True,
                                  no_bank_conflict_b=True)
    assert TABLE.former_keys == {"vw": "vector_width", "cls": "cache_line_bytes", "db": "double_buffer",
                                 "nbc_a": "no_bank_conflict_a", "nbc_b": "no_bank_conflict_b"}


def test_recorded_results_still_parse():
    names = set()
    for path in (REPO / "benchmark" / "results").glob("tune_*.json"):
        for run in json.loads(path.read_text())["runs"]:
            names |= {r["name"] for r in run["results"] if r["kind"] == "config"}
    assert len(names) > 100
    for name in names:
        assert GemmConfig.from_text(name).family in TABLE.family_names()


def test_committed_defaults_parse():
    # Written by select_defaults.py from tune_* results: in the text form of the run they came from.
    for path in (REPO / "configs" / "defaults").glob("*.json"):
        for entry in json.loads(path.read_text())["entries"]:
            assert GemmConfig.from_text(entry["configuration"]).family in TABLE.family_names()
    hand_written = re.findall(r'"((?:local|no_local|no_local_full|naive|mma) [^"]*)"',
                              (REPO / "src" / "blas" / "gemm_defaults.def").read_text())
    assert hand_written
    for text in hand_written:
        keys = [word.split("=")[0] for word in text.split()[1:]]
        assert all(TABLE.param(key) for key in keys), text  # no former keys in committed files
        GemmConfig.from_text(text)


def test_unreadable_text_is_named():
    with pytest.raises(ValueError, match="cannot read 'colour=red': unknown key"):
        GemmConfig.from_text("local colour=red")
    with pytest.raises(ValueError, match="'item=4': expected ROWSxCOLS"):
        GemmConfig.from_text("local item=4")
    with pytest.raises(ValueError, match="the first word is the family"):
        GemmConfig.from_text("tiled item=4x4")


# ---- the table file's grammar --------------------------------------------------------------

@pytest.mark.parametrize("line, error", [
    ('TESSERA_GEMM_INT(group_rows, 1, 1, "local", "1 2 4", "meaning"', "not an entry of the grammar"),
    ('TESSERA_GEMM_INT(group_rows, 1, 1, "lokal", "1 2 4", "meaning")', "families are 'all' or names of families"),
    ('TESSERA_GEMM_INT(group_rows, 1, 1, "local", "1 to 4", "meaning")', "allowed values are 'v v v' or '>= n'"),
    ('TESSERA_GEMM_INT(vector_width, 1, 1, "local", "1 2 4", "meaning")', "'vector_width' is defined twice"),
    ('TESSERA_GEMM_INT(group_rows, 1, 2, "all", "1 2 4", "meaning")', "a parameter of every family has unused = default"),
    ('TESSERA_GEMM_CHOICE(order, gemm_order, row, column, "all", "meaning", row, col)', "the default and unused"),
    ('TESSERA_GEMM_FORMER_KEY(gr, group_rows)', "former key 'gr' names 'group_rows', which is not a parameter"),
])
def test_a_table_line_outside_the_grammar_is_named(tmp_path, line, error):
    path = tmp_path / "gemm_params.def"
    anchor = "// ---- keys of the text form"
    path.write_text(PARAMS_FILE.read_text().replace(anchor, line + "\n" + anchor))
    with pytest.raises(ParamFileError, match=re.escape(error)):
        load_param_table(path)


# ---- adding a parameter: its table line is all the generator needs --------------------------

GROUP_ROWS = 'TESSERA_GEMM_INT(group_rows, 1, 1, "local", "1 2 4 8", "work-groups along M that run next to each other (tile rasterization for L2 reuse)")'


def test_adding_a_parameter_takes_its_table_line_alone(tmp_path):
    """A hypothetical group_rows (tile rasterization) as it would be added: one line in gemm_params.def (plus the kernel,
    and gemm_rules.def for constraints). Everything the generator derives follows."""
    path = tmp_path / "gemm_params.def"
    anchor = "TESSERA_GEMM_CHOICE(batch,"
    path.write_text(PARAMS_FILE.read_text().replace(anchor, GROUP_ROWS + "\n" + anchor))
    table = load_param_table(path)
    config_class = table.config_class()
    local = config_class.make("local")
    assert local.group_rows == 1 and " group_rows=1 " in local.text()
    assert config_class.from_text("local group_rows=4").group_rows == 4
    assert "group_rows" not in config_class.make("naive").text()  # where it does not apply, it is left out
    assert ".group_rows = 1" in local.initializer()
    assert local.rule_inputs(4, LIMITS)["group_rows"] == 1
    schema = table.json_schema()["$defs"]["entry"]["properties"]["group_rows"]
    assert schema["items"] == {"type": "integer", "enum": [1, 2, 4, 8]}
    rules = load_rule_table(RULES_FILE, params=table)
    assert [r.name for r in rules.violations(config_class.make("local", group_rows=3).rule_inputs(4, LIMITS))] == [
        "group_rows_allowed"]
    assert [r.name for r in rules.violations(config_class.make("naive", group_rows=2).rule_inputs(4, LIMITS))] == [
        "group_rows_applies"]
    document = {"configurations": [{"family": ["local"], "group_rows": [1, 2, 4], "vector_width": [4]}]}
    expansion = expand(document, table, rules, LIMITS, "target.json")
    assert [c.group_rows for c in expansion.configs] == [1, 2, 4]


def test_the_walk_through_and_the_cpp_demonstration_use_the_same_line():
    assert GROUP_ROWS in (REPO / "tools" / "auto_tuner" / "README.md").read_text()
    assert GROUP_ROWS in (REPO / "tests" / "auto_tuner" / "check_new_parameter.py").read_text()


def test_pair_values_are_written_rows_x_columns():
    assert param_value_text(TABLE.param("item"), (8, 4)) == "8x4"
    assert GemmConfig.make("local", item_rows=8, item_cols=4).item_cols == 4
