"""weak_shapes.py, and the shape file it picked for coverage-tune."""
from __future__ import annotations

import json
from pathlib import Path

import weak_shapes
from test_select_defaults import result, write_results

ROOT = Path(__file__).resolve().parents[2]
CUBLAS = "cuBLAS (no TF32)"


def timed(m: int, best: float, cublas: float | None, partial: bool = False) -> dict:
    """A database timing run at m x 64 x 32 nn: two configurations (the faster reaches best), the
    default row, and cuBLAS (None: it failed)."""
    results = [result("CLBlast", 10 * best, kind="baseline"),
               result(CUBLAS, cublas, kind="baseline", status="ok" if cublas else "launch_failed"),
               result("tessera default: a", best / 2, kind="default", configuration="a"),
               result("a", best / 2), result("b", best)]
    return {"transposes": "nn", "m": m, "n": 64, "k": 32, "batch": 1, "problem_class": "small",
            "configs_total": 2, "partial": partial, "results": results}


def pick(tmp_path: Path, runs: list[dict], *options: str) -> int:
    matrix = write_results(tmp_path, runs, "matrix.json")
    return weak_shapes.main([str(matrix), "--baseline", CUBLAS, "--description", "weak", "--output",
                             str(tmp_path / "weak.json"), *options])


def test_the_shapes_whose_best_is_below_the_fraction_are_written_in_order(tmp_path):
    # 899 of 1000 is below 0.9; 900 is not; CLBlast's row (faster than both) is not the baseline asked.
    assert pick(tmp_path, [timed(3, 500, 1000), timed(5, 900, 1000), timed(7, 899, 1000)], "--below", "0.9") == 0
    written = json.loads((tmp_path / "weak.json").read_text())
    assert written["description"] == "weak"
    assert [s["m"] for s in written["shapes"]] == [3, 7]
    assert written["shapes"][0] == {"m": 3, "n": 64, "k": 32, "batch": 1, "transposes": "nn"}


def test_a_stopped_run_or_a_missing_baseline_is_named(tmp_path, capsys):
    assert pick(tmp_path, [timed(3, 500, 1000), timed(5, 500, 1000, partial=True)], "--below", "0.9") == 1
    assert "5x64x32 nn: the run was stopped" in capsys.readouterr().err
    assert pick(tmp_path, [timed(3, 500, None)], "--below", "0.9") == 1
    assert f"3x64x32 nn: no verified timing of the baseline '{CUBLAS}'" in capsys.readouterr().err
    assert pick(tmp_path, [timed(3, 500, 1000)], "--below", "0") == 1
    assert "--below 0.0: expected a number above 0" in capsys.readouterr().err
    assert not (tmp_path / "weak.json").exists()


def test_the_coverage_tune_file_is_the_pick_from_the_committed_coverage_run():
    shipped = json.loads((ROOT / "configs/shapes/coverage_tune.json").read_text())["shapes"]
    matrix = ROOT / "benchmark/results/coverage_matrix_h200_2026-11-29.json"
    assert shipped == weak_shapes.weak_shapes(matrix, CUBLAS, 0.9)
    coverage = json.loads((ROOT / "configs/shapes/coverage.json").read_text())["shapes"]
    assert shipped and all(s in coverage for s in shipped)
