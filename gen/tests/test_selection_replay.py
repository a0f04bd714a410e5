"""selection_replay.py: the leave-one-shape-out replay of the defaults table's selection rule."""
from __future__ import annotations

import gzip
import json
import os
import stat
import sys
from pathlib import Path

import pytest

import selection_replay
from tune_results import ResultsError, load_results
from test_select_defaults import DEFAULT, X, Y, finalist, run, write_results

# The replay compares configurations in today's text form (selection_replay.as_written_today).
X_TODAY, Y_TODAY, DEFAULT_TODAY = (selection_replay.as_written_today(c) for c in (X, Y, DEFAULT))


def a_win_at(size: int, x_gflops: float, y_gflops: float) -> dict:
    """X beats the default (and Y) at size^3, clearly, in the search and the re-measurement."""
    return run({X: x_gflops, Y: y_gflops}, 100.0,
               [finalist(X, "config", 1.0e-3, 0.01e-3), finalist(Y, "config", 2.0e-3, 0.01e-3),
                finalist(DEFAULT, "default", 3.0e-3, 0.01e-3)], "best", X, size=size)


def test_fractions_are_per_sweep_then_the_median(tmp_path: Path) -> None:
    first = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0)], name="a.json")
    second = write_results(tmp_path, [a_win_at(1024, 800.0, 600.0)], name="b.json")
    third = write_results(tmp_path, [a_win_at(1024, 800.0, 700.0)], name="c.json")
    sweeps = [s for p in (first, second, third) for s in selection_replay.load_sweeps(p)]
    fractions = selection_replay.measured_fractions(sweeps)
    key = ("NVIDIA H200", "float", "fp32", "nn", 1024, 1024, 1024, 1)
    assert set(fractions) == {key}
    assert fractions[key][X_TODAY] == pytest.approx(1.0)
    assert fractions[key][Y_TODAY] == pytest.approx(0.75)  # the median of 0.5, 0.75, 0.875
    assert fractions[key][DEFAULT_TODAY] == pytest.approx(0.125)  # 100 of 800 in every sweep


def test_a_compare_sweeps_document_gives_both_of_its_sweeps(tmp_path: Path) -> None:
    one = json.loads(write_results(tmp_path, [a_win_at(512, 500.0, 250.0)], name="one.json").read_text())
    two = json.loads(write_results(tmp_path, [a_win_at(512, 400.0, 300.0)], name="two.json").read_text())
    compared = tmp_path / "compared.json"
    compared.write_text(json.dumps({"comparison": {}, "first": one, "second": two}))
    sweeps = selection_replay.load_sweeps(compared)
    assert len(sweeps) == 2
    assert [s.runs[0].m for s in sweeps] == [512, 512]


def test_a_bad_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(selection_replay.ResultsError, match="bad.json"):
        selection_replay.load_sweeps(bad)


def fake_gemm_pick(tmp_path: Path) -> Path:
    """A stand-in for the C++ gemm_pick: answers the first entry of the database it is given, and
    keeps every database it was given (to check that the hidden shape was hidden)."""
    script = tmp_path / "gemm_pick"
    script.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
database = json.loads(open(args[args.index("--defaults") + 1]).read())
shape = json.loads(open(args[args.index("--shapes") + 1]).read())[0]
with open({str(tmp_path / "seen.jsonl")!r}, "a") as seen:
    seen.write(json.dumps({{"shape": shape, "units": args[args.index("--compute-units") + 1],
                           "database": database}}) + "\\n")
print(json.dumps([dict(shape, configuration=database["entries"][0]["configuration"])]))
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def gemm_pick_calls(tmp_path: Path) -> list[dict]:
    """What a stand-in gemm_pick (fake_gemm_pick, matrix_gemm_pick) was given, call by call."""
    return [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]


def test_each_shape_is_picked_from_a_database_without_it(tmp_path: Path) -> None:
    sweep = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0), a_win_at(2048, 900.0, 880.0)])
    output = tmp_path / "replay.json"
    assert selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", str(fake_gemm_pick(tmp_path)),
                                  "--json", str(output)]) == 0
    seen = gemm_pick_calls(tmp_path)
    assert len(seen) == 4  # two shapes, two rules
    assert sorted(s["units"] for s in seen) == ["0", "0", "132", "132"]
    for s in seen:
        tuned = {e["shape"]["m"] for e in s["database"]["entries"] if "shape" in e}
        assert s["shape"]["m"] not in tuned and tuned  # the other shape only
    replayed = json.loads(output.read_text())
    assert [s["m"] for s in replayed["shapes"]] == [1024, 2048]
    # The other shape's winner is X: measured 1.0 of the best at both shapes.
    assert all(s["fill"] == {"configuration": X_TODAY, "fraction_of_best": 1.0} for s in replayed["shapes"])
    assert replayed["summary"]["nearest"]["geometric_mean"] == pytest.approx(1.0)


def test_a_pick_run_with_the_calls_split_scores_its_entry(tmp_path: Path) -> None:
    # gemm_pick's "configuration" is what the call runs (a tuned shape's configuration with the
    # call's split of K); no sweep timed that split, so the replay scores the entry's configuration.
    script = tmp_path / "gemm_pick"
    script.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
shape = json.loads(open(args[args.index("--shapes") + 1]).read())[0]
entry = {{"origin": "tuned", "configuration": {X!r}}}
print(json.dumps([dict(shape, configuration={Y!r} + " split_k=3", entry=entry)]))
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    sweep = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0), a_win_at(2048, 900.0, 880.0)])
    output = tmp_path / "replay.json"
    assert selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", str(script),
                                  "--json", str(output)]) == 0
    replayed = json.loads(output.read_text())
    assert all(s["fill"] == {"configuration": X_TODAY, "fraction_of_best": 1.0} for s in replayed["shapes"])


def test_a_failing_gemm_pick_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0), a_win_at(2048, 900.0, 880.0)])
    broken = tmp_path / "gemm_pick"
    broken.write_text("#!/bin/sh\necho 'gemm_pick: no such device' >&2\nexit 3\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    assert selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", str(broken)]) == 1
    assert "no such device" in capsys.readouterr().err


def test_require_fails_below_the_fraction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The fake picks X everywhere: the best at 1024 and 2048, half the best at 4096 (Y won
    # there): a geometric mean of 0.79.
    half = run({X: 400.0, Y: 800.0}, 100.0,
               [finalist(Y, "config", 1.0e-3, 0.01e-3), finalist(X, "config", 2.0e-3, 0.01e-3),
                finalist(DEFAULT, "default", 3.0e-3, 0.01e-3)], "best", Y, size=4096)
    sweep = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0), a_win_at(2048, 900.0, 880.0), half])
    pick = str(fake_gemm_pick(tmp_path))
    assert selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", pick, "--require", "0.7"]) == 0
    assert selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", pick, "--require", "0.9"]) == 1
    assert "below the required 0.9" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        selection_replay.main([str(sweep), "--compute-units", "132", "--gemm-pick", pick, "--require", "1.5"])


def matrix_gemm_pick(tmp_path: Path) -> Path:
    """A stand-in for gemm_pick for --matrix: for each shape, the first measured entry of the
    database where there is one (the measured rule), else its first entry, else the default."""
    script = tmp_path / "gemm_pick"
    script.write_text(f"""#!{sys.executable}
import json, sys
args = sys.argv[1:]
entries = json.loads(open(args[args.index("--defaults") + 1]).read())["entries"]
shapes = json.loads(open(args[args.index("--shapes") + 1]).read())
with open({str(tmp_path / "seen.jsonl")!r}, "a") as seen:
    seen.write(json.dumps({{"shapes": shapes, "entries": entries}}) + "\\n")
fallback = entries[0] if entries else {{"configuration": {DEFAULT!r}}}
chosen = next((e for e in entries if e.get("role") == "measured"), fallback)["configuration"]
print(json.dumps([dict(s, configuration=chosen) for s in shapes]))
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def replay_matrix(tmp_path: Path, matrix: Path, database: dict) -> dict:
    """selection_replay --matrix on matrix with database, through matrix_gemm_pick: the replay's JSON."""
    db_path = tmp_path / "db.json"
    db_path.write_text(json.dumps(database))
    output = tmp_path / "replay.json"
    assert selection_replay.main([str(matrix), "--matrix", str(db_path), "--compute-units", "132",
                                  "--gemm-pick", str(matrix_gemm_pick(tmp_path)), "--json", str(output)]) == 0
    return json.loads(output.read_text())


def test_a_matrix_scores_both_rules_at_untuned_shapes_and_each_tuned_one_left_out(tmp_path: Path) -> None:
    def timed(size: int, x: float, y: float) -> dict:
        return run({X: x, Y: y}, 10.0, [finalist(DEFAULT, "default", 1.0e-3, 0.01e-3)], "default_kept", size=size)

    matrix = write_results(tmp_path, [timed(1024, 800.0, 400.0), timed(2048, 900.0, 450.0), timed(1500, 300.0, 600.0)])
    shape = {"m": 1024, "n": 1024, "k": 1024, "batch": 1}
    database = {"entries": [
        {"level": "name", "match": "NVIDIA H200", "element_bytes": 4, "transposes": "nn", "problem": "large",
         "shape": shape, "configuration": Y, "origin": "tuned"},
        {"level": "name", "match": "NVIDIA H200", "element_bytes": 4, "transposes": "nn", "problem": "large",
         "shape": shape, "role": "measured", "configuration": X, "gflops": 800.0, "origin": "measured"}]}
    replayed = replay_matrix(tmp_path, matrix, database)
    by_size = {s["m"]: s for s in replayed["shapes"]}
    assert {s: by_size[s]["group"] for s in by_size} == {2048: "untuned", 1500: "untuned", 1024: "left out"}
    # Untuned: the fill rule (no measured entries) answers Y, the measured rule X.
    assert by_size[2048]["fill"] == {"configuration": Y_TODAY, "fraction_of_best": 0.5}
    assert by_size[2048]["measured"] == {"configuration": X_TODAY, "fraction_of_best": 1.0}
    assert by_size[1500]["measured"]["fraction_of_best"] == 0.5
    assert replayed["summary"]["untuned, measured"]["geometric_mean"] == pytest.approx(0.5 ** 0.5)
    # The tuned shape is picked from a database without its entries.
    seen = gemm_pick_calls(tmp_path)
    left_out = [s for s in seen if [x["m"] for x in s["shapes"]] == [1024]]
    assert left_out and all(s["entries"] == [] for s in left_out)


def test_require_on_a_matrix_holds_the_measured_rule_at_its_untuned_shapes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def timed(size: int, x: float, y: float) -> dict:
        return run({X: x, Y: y}, 10.0, [finalist(DEFAULT, "default", 1.0e-3, 0.01e-3)], "default_kept", size=size)

    # Untuned 2048^3 (X the best: 1.0) and 1500^3 (X half the best): the measured rule's picks
    # (X, through matrix_gemm_pick) reach sqrt(0.5) = 0.707 there.
    matrix = write_results(tmp_path, [timed(1024, 800.0, 400.0), timed(2048, 900.0, 450.0), timed(1500, 300.0, 600.0)])
    db_path = tmp_path / "db.json"
    db_path.write_text(json.dumps({"entries": [
        {"level": "name", "match": "NVIDIA H200", "element_bytes": 4, "transposes": "nn", "problem": "large",
         "shape": {"m": 1024, "n": 1024, "k": 1024, "batch": 1}, "role": "measured", "configuration": X,
         "gflops": 800.0, "origin": "measured"}]}))
    pick = str(matrix_gemm_pick(tmp_path))
    command = [str(matrix), "--matrix", str(db_path), "--compute-units", "132", "--gemm-pick", pick, "--require"]
    assert selection_replay.main(command + ["0.70"]) == 0
    assert selection_replay.main(command + ["0.72"]) == 1
    assert "picks at the matrix's 2 untuned shapes reach 0.707 of the best timed there, below the required 0.72" in (
        capsys.readouterr().err)
    # A matrix of the database's own shapes alone has nothing to require of.
    tuned_only = write_results(tmp_path, [timed(1024, 800.0, 400.0)], name="tuned_only.json")
    assert selection_replay.main([str(tuned_only)] + command[1:] + ["0.5"]) == 1
    assert "the matrix has no untuned shape" in capsys.readouterr().err


def test_a_matrix_of_tuned_shapes_alone_read_from_gzip_leaves_each_out(tmp_path: Path) -> None:
    # Every shape of the matrix has entries in the database: no untuned group, and no gemm_pick
    # call with an empty suite (which gemm_pick rejects). The matrix is kept compressed.
    plain = write_results(tmp_path, [run({X: 800.0, Y: 400.0}, 10.0, [finalist(DEFAULT, "default", 1.0e-3, 0.01e-3)],
                                         "default_kept", size=1024)])
    matrix = tmp_path / "matrix.json.gz"
    matrix.write_bytes(gzip.compress(plain.read_bytes()))
    database = {"entries": [
        {"level": "name", "match": "NVIDIA H200", "element_bytes": 4, "transposes": "nn", "problem": "large",
         "shape": {"m": 1024, "n": 1024, "k": 1024, "batch": 1}, "role": "measured", "configuration": X,
         "gflops": 800.0, "origin": "measured"}]}
    replayed = replay_matrix(tmp_path, matrix, database)
    assert [s["group"] for s in replayed["shapes"]] == ["left out"]
    assert replayed["summary"]["untuned, measured"]["shapes"] == 0
    seen = gemm_pick_calls(tmp_path)
    assert seen and all(s["shapes"] for s in seen)


def test_a_results_file_that_is_not_gzip_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "matrix.json.gz"
    broken.write_text("{}")
    with pytest.raises(ResultsError, match="matrix.json.gz: not a gzip file"):
        load_results(broken)


def test_a_matrix_needs_one_run_and_a_defaults_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    matrix = write_results(tmp_path, [a_win_at(1024, 800.0, 400.0)])
    pick = str(matrix_gemm_pick(tmp_path))
    assert selection_replay.main([str(matrix), str(matrix), "--matrix", str(matrix), "--compute-units", "132",
                                  "--gemm-pick", pick]) == 1
    assert "give the one matrix run" in capsys.readouterr().err
    assert selection_replay.main([str(matrix), "--matrix", str(matrix), "--compute-units", "132",
                                  "--gemm-pick", pick]) == 1
    assert "$.entries: expected a list" in capsys.readouterr().err


def measured_entry(size: int, configuration: str, gflops: float) -> dict:
    return {"level": "name", "match": "NVIDIA H200", "architecture": "sm_90", "element_bytes": 4, "transposes": "nn",
            "problem": "large", "shape": {"m": size, "n": size, "k": size, "batch": 1}, "role": "measured",
            "configuration": configuration, "gflops": gflops, "origin": "measured"}


def own_figures_gemm_pick(tmp_path: Path) -> Path:
    """A stand-in for gemm_pick for --own-figures: the first measured entry of the database it is
    given, run as blas::gemm runs a measured shape's pick elsewhere, with the call's split (3)."""
    script = tmp_path / "gemm_pick"
    script.write_text(f"""#!{sys.executable}
import json, re, sys
args = sys.argv[1:]
entries = json.loads(open(args[args.index("--defaults") + 1]).read())["entries"]
shape = json.loads(open(args[args.index("--shapes") + 1]).read())[0]
with open({str(tmp_path / "seen.jsonl")!r}, "a") as seen:
    seen.write(json.dumps({{"shapes": [shape], "entries": entries}}) + "\\n")
entry = next(e for e in entries if e.get("role") == "measured")
print(json.dumps([dict(shape, configuration=re.sub(r"split_k=\\d+", "split_k=3", entry["configuration"]), entry=entry)]))
""")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_own_figures_leave_each_measured_shape_out_and_score_the_split_the_call_runs(tmp_path: Path) -> None:
    x_per_call, y_per_call = (selection_replay.split_per_call(selection_replay.as_written_today(c)) for c in (X, Y))
    assert "split_k=0" in x_per_call and x_per_call != X_TODAY
    # At 1024^3 X was timed split per call (which the call's split 3 runs as) and whole; at 2048^3
    # only Y was timed split per call, and X whole: X with split 3 was not timed there.
    database = {"entries": [measured_entry(1024, Y_TODAY, 500.0), measured_entry(1024, x_per_call, 800.0),
                            measured_entry(1024, X_TODAY, 900.0),
                            measured_entry(2048, X_TODAY, 600.0), measured_entry(2048, y_per_call, 1000.0)]}
    db_path, output = tmp_path / "db.json.gz", tmp_path / "replay.json"
    db_path.write_bytes(gzip.compress(json.dumps(database).encode()))
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick",
                                  str(own_figures_gemm_pick(tmp_path)), "--json", str(output)]) == 0
    replayed = json.loads(output.read_text())
    by_size = {s["m"]: s for s in replayed["shapes"]}
    # 1024^3 is picked from 2048^3's entries (X first): X split per call, 800 of the best 900.
    assert by_size[1024]["fraction_of_best"] == pytest.approx(800.0 / 900.0)
    # 2048^3 from 1024^3's (Y first): Y split per call, the best there.
    assert by_size[2048]["fraction_of_best"] == pytest.approx(1.0)
    for call in gemm_pick_calls(tmp_path):
        hidden = call["shapes"][0]["m"]
        assert call["entries"] and all(e["shape"]["m"] != hidden for e in call["entries"])
    assert replayed["summary"]["geometric_mean"] == pytest.approx((800.0 / 900.0) ** 0.5)
    pick = str(own_figures_gemm_pick(tmp_path))
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick", pick,
                                  "--require", "0.94"]) == 0
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick", pick,
                                  "--require", "0.95"]) == 1


def test_own_figures_need_measured_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db_path = tmp_path / "db.json"
    db_path.write_text(json.dumps({"entries": [dict(measured_entry(1024, X, 1.0), role="tuned")]}))
    pick = str(own_figures_gemm_pick(tmp_path))
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick", pick]) == 1
    assert "no measured float entries" in capsys.readouterr().err
    broken = measured_entry(1024, X, 1.0)
    del broken["gflops"]
    db_path.write_text(json.dumps({"entries": [measured_entry(2048, X, 1.0), broken]}))
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick", pick]) == 1
    assert "$.entries[1]: a measured entry without 'gflops'" in capsys.readouterr().err
    db_path.write_text(json.dumps([1, 2]))
    assert selection_replay.main([str(db_path), "--own-figures", "--compute-units", "132", "--gemm-pick", pick]) == 1
    assert "db.json: $.entries: expected a list" in capsys.readouterr().err
