"""select_defaults.py, defaults_table.py and plot_results.py on sample tune results."""
from __future__ import annotations

import json
from pathlib import Path

import defaults_table
import plot_results
import select_defaults


def sample_results(tmp_path: Path, name: str = "run.json", best: float = 900.0) -> Path:
    def result(config: str, gflops: float | None, status: str = "ok", kind: str = "config"):
        return {"name": config, "kind": kind, "status": status, "reason": "" if status == "ok" else "build log",
                "gflops": None if gflops is None else {"min": gflops * 0.9, "median": gflops, "max": gflops * 1.1},
                "build_seconds": 0.2}

    document = {
        "tool": "tune_all", "date": "2026-11-22T01:00:00Z", "element_type": "float",
        "device": {"name": "NVIDIA H200", "vendor": "NVIDIA Corporation", "type": "gpu", "architecture": "sm_90"},
        "runs": [
            {"transposes": "nn", "m": 4096, "n": 4096, "k": 4096, "batch": 1, "problem_class": "large",
             "results": [result("CLBlast", 600.0, kind="baseline"), result("default", 500.0, kind="default"),
                         result("local vw=4 cls=64 item=8x8 wg=16x16", best),
                         result("local vw=2 cls=32 item=4x4 wg=8x8", 300.0),
                         result("local vw=8 cls=64 item=8x8 wg=16x16", None, status="build_failed")]},
            {"transposes": "tt", "m": 4096, "n": 4096, "k": 4096, "batch": 1, "problem_class": "large",
             "results": [result("local vw=1 cls=32 item=2x2 wg=8x8", None, status="wrong_result")]},
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_the_best_verified_configuration_wins(tmp_path):
    status = select_defaults.main([str(sample_results(tmp_path)), "--target", "nvidia_gpu",
                                   "--output_dir", str(tmp_path / "defaults")])
    assert status == 0
    document = json.loads((tmp_path / "defaults" / "nvidia_gpu.json").read_text())
    assert [e["transposes"] for e in document["entries"]] == ["nn"]  # tt had no verified config
    entry = document["entries"][0]
    assert entry["configuration"] == "local vw=4 cls=64 item=8x8 wg=16x16"
    assert entry["level"] == "name" and entry["match"] == "NVIDIA H200" and entry["element_bytes"] == 4
    assert "1.50x CLBlast" in entry["origin"]


def test_the_better_of_two_runs_is_kept(tmp_path):
    first = sample_results(tmp_path, "a.json", best=900.0)
    second = sample_results(tmp_path, "b.json", best=950.0)
    select_defaults.main([str(first), str(second), "--target", "t", "--output_dir", str(tmp_path)])
    document = json.loads((tmp_path / "t.json").read_text())
    assert document["entries"][0]["gflops"] == 950.0
    assert document["sources"] == ["a.json", "b.json"]


def test_runs_of_different_sizes_compare_by_fraction_of_their_best(tmp_path):
    # x leads at 4096 and is within 4% at 8192; y wins 8192 only. Raw GFLOP/s would pick y
    # (8192 runs faster); over both sizes x is the better default.
    def run_at(size, x, y):
        return {"transposes": "nn", "m": size, "n": size, "k": size, "batch": 1, "problem_class": "large",
                "results": [{"name": name, "kind": "config", "status": "ok", "reason": "", "build_seconds": 0.1,
                             "gflops": {"min": g, "median": g, "max": g}} for name, g in (("x", x), ("y", y))]}
    document = {"tool": "tune_nn", "date": "2026-11-22T01:00:00Z", "element_type": "float",
                "device": {"name": "GPU", "vendor": "v", "type": "gpu"},
                "runs": [run_at(4096, 1000.0, 900.0), run_at(8192, 1150.0, 1200.0)]}
    path = tmp_path / "sizes.json"
    path.write_text(json.dumps(document))
    assert select_defaults.main([str(path), "--target", "t", "--output_dir", str(tmp_path)]) == 0
    entry = json.loads((tmp_path / "t.json").read_text())["entries"][0]
    assert entry["configuration"] == "x"
    assert entry["gflops"] == 1150.0 and "8192x8192x8192" in entry["origin"] and "2 runs" in entry["origin"]


def test_bad_results_are_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"device": {"name": "x", "vendor": "y", "type": "gpu"}, "runs": [{"m": 1}]}))
    assert select_defaults.main([str(bad), "--target", "t", "--output_dir", str(tmp_path / "d")]) == 1
    assert "bad.json: $.runs[0]: missing key 'results'" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_defaults_table_renders_x_macro_lines(tmp_path):
    select_defaults.main([str(sample_results(tmp_path)), "--target", "nvidia_gpu", "--output_dir", str(tmp_path)])
    out = tmp_path / "table.def"
    assert defaults_table.main([str(out), str(tmp_path / "nvidia_gpu.json")]) == 0
    lines = [line for line in out.read_text().splitlines() if line.startswith("TESSERA_GEMM_DEFAULT")]
    assert lines == ['TESSERA_GEMM_DEFAULT(name, "NVIDIA H200", 4, "nn", "large", '
                     '"local vw=4 cls=64 item=8x8 wg=16x16", "tuned 2026-11-22 on NVIDIA H200 at 4096x4096x4096: '
                     '900 GFLOP/s, 1.50x CLBlast")']


def test_defaults_table_rejects_a_bad_level(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"entries": [{"level": "planet", "match": "x", "element_bytes": 4, "transposes": "nn",
                                            "problem": "large", "configuration": "naive", "origin": "o"}]}))
    assert defaults_table.main([str(tmp_path / "t.def"), str(bad)]) == 1
    assert "$.entries[0].level" in capsys.readouterr().err


def test_plot_is_a_png(tmp_path):
    out = tmp_path / "plot.png"
    assert plot_results.main([str(sample_results(tmp_path)), "--output", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
