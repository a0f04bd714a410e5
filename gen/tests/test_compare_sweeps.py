"""gen/compare_sweeps.py: two sweeps of the same problems, compared problem by problem."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import compare_sweeps  # noqa: E402

A = "local vw=4 cls=64 item=8x8 wg=16x16"
B = "local vw=4 cls=32 item=4x4 wg=8x8"
DEFAULT = "local vw=1 cls=32 item=2x2 wg=8x8"


def run(winner: str, seconds: dict[str, float], m: int = 64, partial: bool = False) -> dict:
    """A run whose finalists took `seconds` (configuration -> median) and chose winner."""
    results = [{"name": c, "kind": "config", "configuration": c, "status": "ok", "reason": "",
                "gflops": {"median": 1.0 / t}} for c, t in seconds.items()]
    results.append({"name": f"tessera default: {DEFAULT}", "kind": "default", "configuration": DEFAULT,
                    "status": "ok", "reason": "", "gflops": {"median": 1.0}})
    finalists = [{"name": c, "kind": "config", "configuration": c,
                  "seconds": {"min": t, "median": t, "max": t, "spread": 0.0}} for c, t in seconds.items()]
    finalists.append({"name": "default", "kind": "default", "configuration": DEFAULT,
                      "seconds": {"min": 1.0, "median": 1.0, "max": 1.0, "spread": 0.0}})
    return {"transposes": "nn", "m": m, "n": 64, "k": 64, "batch": 1, "problem_class": "small", "partial": partial,
            "results": results, "finalists": {"rounds": 5, "entries": finalists},
            "decision": {"verdict": "best", "best_configuration": winner, "default_configuration": DEFAULT,
                         "reason": ""}}


def write(tmp_path: Path, name: str, runs: list[dict]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"date": "2026-11-28", "device": {"name": "d", "vendor": "v", "type": "gpu"},
                                "runs": runs}))
    return path


def test_the_same_winners_pass(tmp_path, capsys):
    one = write(tmp_path, "one.json", [run(A, {A: 0.5, B: 0.8}), run(B, {A: 0.9, B: 0.5}, m=32)])
    two = write(tmp_path, "two.json", [run(B, {A: 0.9, B: 0.5}, m=32), run(A, {A: 0.5, B: 0.8})])
    assert compare_sweeps.main([str(one), str(two)]) == 0
    assert "2 problems: same winner at 2" in capsys.readouterr().out


def test_a_close_call_is_noise_and_passes(tmp_path, capsys):
    # The first run was sure of A (60% ahead), the second's B was 2% ahead: within its noise.
    one = write(tmp_path, "one.json", [run(A, {A: 0.5, B: 0.8})])
    two = write(tmp_path, "two.json", [run(B, {A: 0.51, B: 0.5})])
    assert compare_sweeps.main([str(one), str(two)]) == 0
    assert "within a run's noise; margins +60.0% and +2.0%" in capsys.readouterr().out


def test_both_runs_sure_of_different_winners_fails(tmp_path, capsys):
    one = write(tmp_path, "one.json", [run(A, {A: 0.5, B: 0.8})])
    two = write(tmp_path, "two.json", [run(B, {A: 0.8, B: 0.5})])
    assert compare_sweeps.main([str(one), str(two)]) == 1
    assert "both runs sure" in capsys.readouterr().out
    assert compare_sweeps.main([str(one), str(two), "--clear", "0.7"]) == 0


def test_a_missing_or_partial_problem_fails(tmp_path, capsys):
    one = write(tmp_path, "one.json", [run(A, {A: 0.5, B: 0.8}), run(A, {A: 0.5, B: 0.8}, m=32)])
    two = write(tmp_path, "two.json", [run(A, {A: 0.5, B: 0.8})])
    assert compare_sweeps.main([str(one), str(two)]) == 1
    assert "only in the first run" in capsys.readouterr().out
    three = write(tmp_path, "three.json", [run(A, {A: 0.5, B: 0.8}), run(A, {A: 0.5, B: 0.8}, m=32, partial=True)])
    assert compare_sweeps.main([str(one), str(three)]) == 1
    assert "not complete in both runs" in capsys.readouterr().out


def test_the_json_holds_both_runs_and_the_comparison(tmp_path):
    one = write(tmp_path, "one.json", [run(A, {A: 0.5, B: 0.8})])
    two = write(tmp_path, "two.json", [run(A, {A: 0.5, B: 0.8})])
    out = tmp_path / "both.json"
    assert compare_sweeps.main([str(one), str(two), "--seconds", "100", "55", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["comparison"]["seconds"]["ratio"] == 0.55
    assert document["first"]["runs"][0]["m"] == 64 and document["second"]["runs"][0]["m"] == 64
