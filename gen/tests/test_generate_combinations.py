"""The generator: schema errors with JSON paths, expansion, determinism, --list_files, rules,
hostile input."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import generate_combinations
import gemm_params
from gemm_rules import compile_time_limits, load_rule_table

REPO = Path(__file__).resolve().parents[2]
CONFIGS = REPO / "configs"
TARGETS = ["default", "nvidia_gpu", "amd_gpu", "intel_gpu", "cpu", "ci"]

VALID_LOCAL = {
    "family": ["local"], "cache_line_bytes": [64], "item": [[4, 4]], "wg": [[8, 8]], "double_buffer": [True],
    "vector_width": [4],
}
VALID_NAIVE = {"family": ["naive"], "wg": [[8, 8]]}


def target(*entries) -> dict:
    return {"configurations": list(entries)}


def write_json(tmp_path: Path, document, name: str = "target.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def run(args: list[str], capsys) -> tuple[int, str, str]:
    status = generate_combinations.main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def fails_with(tmp_path: Path, capsys, document, *expected: str) -> None:
    config = write_json(tmp_path, document)
    out_dir = tmp_path / "out"
    status, _, err = run([config, "--def", out_dir / "g.def", "--source_dir", out_dir / "src"], capsys)
    assert status != 0
    for text in expected:
        assert text in err, err
    assert str(config) in err
    assert not out_dir.exists(), "nothing may be written when the input is invalid"


def test_malformed_json_names_line_and_column(tmp_path, capsys):
    fails_with(tmp_path, capsys, '{"configurations": [ {"family": ["local"],, } ] }', ":1:43: malformed JSON")


def test_missing_family_names_the_entry(tmp_path, capsys):
    entry = dict(VALID_LOCAL)
    del entry["family"]
    fails_with(tmp_path, capsys, target(entry), "$.configurations[0]: 'family' is a required property")


def test_wrong_type_names_the_element(tmp_path, capsys):
    entry = dict(VALID_LOCAL, double_buffer=[True, "yes"])
    fails_with(tmp_path, capsys, target(entry), "$.configurations[0].double_buffer[1]: 'yes' is not of type 'boolean'")


def test_value_outside_the_tables_allowed_values_is_named(tmp_path, capsys):
    entry = dict(VALID_LOCAL, vector_width=[4, 3])
    fails_with(tmp_path, capsys, target(entry), "$.configurations[0].vector_width[1]: 3 is not one of [1, 2, 4, 8, 16]")


def test_empty_list_is_an_error(tmp_path, capsys):
    entry = dict(VALID_LOCAL, wg=[])
    fails_with(tmp_path, capsys, target(entry), "$.configurations[0].wg: [] should be non-empty")


def test_unknown_top_level_key_is_an_error(tmp_path, capsys):
    fails_with(tmp_path, capsys, dict(target(VALID_LOCAL), lokal=[]), "$: Additional properties are not allowed ('lokal'")


def test_unknown_parameter_is_an_error(tmp_path, capsys):
    # The keys of the text form before the parameter table are not JSON keys.
    fails_with(tmp_path, capsys, target(dict(VALID_LOCAL, vw=[4])),
               "$.configurations[0]: Additional properties are not allowed ('vw' was unexpected)")


def test_parameter_of_no_listed_family_is_an_error(tmp_path, capsys):
    fails_with(tmp_path, capsys, target(dict(VALID_NAIVE, double_buffer=[True])),
               "$.configurations[0].double_buffer: double_buffer applies to local, none of this entry's families "
               "(naive)")


def test_entry_without_a_valid_combination_is_an_error(tmp_path, capsys):
    entry = dict(VALID_LOCAL, item=[[3, 3]], vector_width=[4])
    fails_with(tmp_path, capsys, target(VALID_LOCAL, entry),
               "$.configurations[1]: no valid configuration among 1 combinations "
               "(rejected by vector_width_divides_item_rows: 1)")


def test_output_is_deterministic_and_list_files_matches(tmp_path, capsys):
    config = CONFIGS / "ci.json"
    outputs = []
    for name in ("first", "second"):
        out = tmp_path / name
        status, _, err = run([config, "--def", out / "generated_combinations.def", "--source_dir", out / "src"], capsys)
        assert status == 0, err
        outputs.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outputs[0] == outputs[1]
    status, listed, _ = run([config, "--source_dir", tmp_path / "first" / "src", "--list_files"], capsys)
    assert status == 0
    listed_files = sorted(Path(p) for p in listed.strip().split(";"))
    assert listed_files == sorted((tmp_path / "first" / "src").glob("*.cpp"))


def test_def_file_is_guarded_and_has_one_line_per_config(tmp_path, capsys):
    out = tmp_path / "g.def"
    status, _, err = run([CONFIGS / "ci.json", "--def", out], capsys)
    assert status == 0
    text = out.read_text()
    assert "#ifndef BENCH_PARAMS\n#error" in text
    kept = int(err.split("generate_combinations: ")[1].split()[0])
    assert text.count("\nBENCH_PARAMS(") == kept
    assert "configs/ci.json" in text and str(REPO) not in text


def test_summary_counts_duplicates_and_rejections(tmp_path, capsys):
    entry = dict(VALID_LOCAL, item=[[4, 4], [4, 2]])
    config = write_json(tmp_path, target(VALID_LOCAL, entry))
    status, _, err = run([config, "--def", tmp_path / "g.def"], capsys)
    assert status == 0
    assert "1 configurations kept of 3 combinations (1 duplicates, 1 invalid)" in err
    assert "rejected by local_vector_width_divides_item_cols: 1" in err


def test_an_entry_varies_its_families_and_parameters_in_table_order(tmp_path, capsys):
    entry = {"family": ["no_local", "no_local_full"], "item": [[4, 4], [8, 4]], "vector_width": [4, 8]}
    out = tmp_path / "g.def"
    status, _, err = run([write_json(tmp_path, target(entry)), "--def", out], capsys)
    assert status == 0, err
    texts = [line.split('"')[1] for line in out.read_text().splitlines() if line.startswith("BENCH_PARAMS(")]
    tiles = [(t.split()[0], t.split(" item=")[1].split()[0], t.split("vector_width=")[1].split()[0]) for t in texts]
    assert tiles == [("no_local", "4x4", "4"), ("no_local", "8x4", "4"), ("no_local", "8x4", "8"),
                     ("no_local_full", "4x4", "4"), ("no_local_full", "8x4", "8")]


def test_stale_sources_are_removed(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "tune_gone.cpp").write_text("// old")
    status, _, _ = run([CONFIGS / "ci.json", "--source_dir", src], capsys)
    assert status == 0
    assert not (src / "tune_gone.cpp").exists()


@pytest.mark.parametrize("target", TARGETS)
def test_every_shipped_target_expands(target, tmp_path, capsys):
    status, _, err = run([CONFIGS / f"{target}.json", "--def", tmp_path / "g.def"], capsys)
    assert status == 0, err


# ---- the rules, evaluated from gemm_rules.def --------------------------------------------

RULES = load_rule_table()
LIMITS = compile_time_limits()
BASE = gemm_params.GemmConfig.make("local", vector_width=4, double_buffer=True)


def test_the_base_configuration_is_valid():
    assert RULES.violations(BASE.rule_inputs(4, LIMITS)) == []


# The tensor-core family's inputs, valid on a device with tensor cores: 2 x 2 warps of 64 x 64.
MMA = {"is_local": 0, "is_mma": 1, "double_buffer": 0, "vector_width": 1, "item_rows": 64, "item_cols": 64,
       "wg_rows": 2, "wg_cols": 2, "cache_line_bytes": 128, "stages": 3}


def test_the_mma_configuration_is_valid():
    assert RULES.violations(dict(BASE.rule_inputs(4, LIMITS), **MMA)) == []


# One binding per rule of gemm_rules.def that breaks that rule alone (changes against BASE's
# inputs); the checks generated from gemm_params.def are tested in test_gemm_params.py.
BREAKS = {
    "element_size": {"element_bytes": 2, "cache_line_bytes": 64},
    "cache_line_multiple_of_element": {"cache_line_bytes": 66},
    "block_level_tiles_unsupported": {"tl_rows": 2},
    "item_batch_unsupported": {"item_batch": 2},
    "interleaved_batch_unsupported": {"batch_is_strided": 0, "batch_is_interleaved": 1},
    "sub_group_tile_divides_work_group": {"sg_rows": 3},
    "vector_width_divides_item_rows": {"item_rows": 2},
    "full_vector_whole_rows": {"is_local": 0, "is_no_local_full": 1, "double_buffer": 0, "item_rows": 8},
    "split_k_at_most_256": {"split_k": 257},
    "local_needs_k_tile": {"cache_line_bytes": 0},
    "local_vector_width_divides_item_cols": {"item_cols": 2, "wg_cols": 16},
    "local_vector_width_divides_k_tile": {"cache_line_bytes": 8},
    "local_a_tile_loads_split_evenly": {"wg_rows": 12, "cache_line_bytes": 16},
    "local_b_tile_loads_split_evenly": {"wg_cols": 12, "cache_line_bytes": 16},
    "local_one_batch_per_work_group": {"wg_batch": 2},
    "local_stages_need_cp_async": {"stages": 2, "double_buffer": 0, "tensor_cores": 0},
    "local_stages_or_double_buffer": {"stages": 2},
    "local_stages_vector_copies": {"stages": 2, "double_buffer": 0, "vector_width": 8, "item_rows": 8, "item_cols": 8},
    "work_group_size_limit": {"wg_rows": 64, "wg_cols": 32},
    "local_memory_limit": {"item_rows": 16, "item_cols": 16, "wg_rows": 16, "wg_cols": 16, "cache_line_bytes": 256},
    "local_k_groups_sum_limit": {"k_groups": 8, "item_rows": 16, "item_cols": 16, "wg_rows": 4, "wg_cols": 4},
    "mma_needs_tensor_cores": {**MMA, "tensor_cores": 0},
    "mma_element_types": {**MMA, "element_bytes": 8, "cache_line_bytes": 256},
    "mma_paired_rows_of_floats": {**MMA, "element_bytes": 2, "cache_line_bytes": 64, "paired_rows": 1},
    "mma_warp_tile_of_fragments": {**MMA, "item_rows": 24},
    "mma_k_tile_of_step_pairs": {**MMA, "cache_line_bytes": 32},
    "mma_a_tile_loads_split_evenly": {**MMA, "item_rows": 16, "wg_rows": 1, "cache_line_bytes": 64, "wg_cols": 8},
    "mma_b_tile_loads_split_evenly": {**MMA, "item_cols": 16, "wg_cols": 1, "cache_line_bytes": 64, "wg_rows": 8},
    "mma_stages_pipeline": {**MMA, "stages": 1},
    "mma_one_batch_per_work_group": {**MMA, "wg_batch": 2},
    "mma_local_memory_limit": {**MMA, "stages": 8, "item_rows": 128},
}


def test_every_rule_has_a_case():
    assert sorted(BREAKS) == sorted(rule.name for rule in RULES.rules)


@pytest.mark.parametrize("rule", sorted(BREAKS))
def test_each_rule_rejects_what_it_names(rule):
    inputs = dict(BASE.rule_inputs(4, LIMITS), **BREAKS[rule])
    broken = [r.name for r in RULES.violations(inputs)]
    assert rule in broken, broken


# ---- hostile input (issue 15, item 7): a message naming the file and the JSON path, exit 1,
# nothing half-written -----------------------------------------------------------------------

def test_integer_valued_float_is_rejected(tmp_path, capsys):
    fails_with(tmp_path, capsys, target({"family": ["naive"], "wg": [[8.0, 8]]}),
               "$.configurations[0].wg[0][0]: 8.0 is not of type 'integer'")


def test_duplicate_key_is_rejected(tmp_path, capsys):
    fails_with(tmp_path, capsys, '{"configurations": [{"family": ["naive"], "wg": [[8, 8]], "wg": [[4, 4]]}]}',
               "$.configurations[0]: key 'wg' appears twice")


def test_duplicate_top_level_key_is_rejected(tmp_path, capsys):
    fails_with(tmp_path, capsys, '{"configurations": [{"family": ["naive"]}], "configurations": []}',
               "$: key 'configurations' appears twice")


def test_non_utf8_file_is_named(tmp_path, capsys):
    config = tmp_path / "target.json"
    config.write_bytes(b'{"configurations": [{"family": ["naive"]}], "description": "\xff"}')
    status, _, err = run([config, "--def", tmp_path / "g.def"], capsys)
    assert status == 1
    assert f"{config}: cannot read: not UTF-8" in err, err


def test_output_below_a_file_is_named(tmp_path, capsys):
    config = write_json(tmp_path, target(VALID_NAIVE))
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    for option, output in (("--def", blocker / "g.def"), ("--source_dir", blocker / "src"), ("--source_dir", blocker)):
        status, _, err = run([config, option, output], capsys)
        assert status == 1, (option, output)
        assert str(blocker) in err and "Traceback" not in err, err


def test_def_output_that_is_a_directory_is_named(tmp_path, capsys):
    config = write_json(tmp_path, target(VALID_NAIVE))
    folder = tmp_path / "folder"
    folder.mkdir()
    status, _, err = run([config, "--def", folder], capsys)
    assert status == 1
    assert f"{folder}: is a directory" in err, err


def test_def_output_that_is_a_device_is_refused_without_reading_it(tmp_path, capsys):
    # /dev/zero never ends: comparing it with the new text would read until memory runs out.
    config = write_json(tmp_path, target(VALID_NAIVE))
    status, _, err = run([config, "--def", "/dev/zero"], capsys)
    assert status == 1
    assert "/dev/zero: exists and is not a regular file" in err, err


def test_failed_write_leaves_no_temporary_file_and_says_so(tmp_path, capsys, monkeypatch):
    import errno
    import os

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    config = write_json(tmp_path, target(VALID_NAIVE))
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(os, "fsync", disk_full)
    status, _, err = run([config, "--def", out / "g.def", "--source_dir", out / "src"], capsys)
    assert status == 1
    assert "No space left on device" in err and str(out) in err, err
    assert [p.name for p in out.rglob("*") if p.is_file()] == []


def test_generated_files_are_readable_by_everyone(tmp_path, capsys):
    import os
    old = os.umask(0o022)
    try:
        status, _, _ = run([CONFIGS / "ci.json", "--def", tmp_path / "g.def", "--source_dir", tmp_path / "src"], capsys)
    finally:
        os.umask(old)
    assert status == 0
    modes = {p.stat().st_mode & 0o777 for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == {0o644}
