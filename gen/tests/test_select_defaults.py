"""select_defaults.py, defaults_table.py and plot_results.py on sample tune results."""
from __future__ import annotations

import json
from pathlib import Path

import defaults_table
import plot_results
import plot_shapes
import select_defaults

X = "local vw=4 cls=64 item=8x8 wg=16x16"
Y = "local vw=2 cls=32 item=4x4 wg=8x8"
DEFAULT = "local vw=1 cls=32 item=2x2 wg=8x8"


def result(name: str, gflops: float | None, status: str = "ok", kind: str = "config",
           configuration: str | None = None) -> dict:
    return {"name": name, "kind": kind, "status": status, "reason": "" if status == "ok" else "build log",
            "configuration": configuration if configuration is not None else (name if kind == "config" else None),
            "gflops": None if gflops is None else {"min": gflops * 0.9, "median": gflops, "max": gflops * 1.1},
            "build_seconds": 0.2}


def finalist(configuration: str, kind: str, median_s: float, spread_s: float) -> dict:
    name = configuration if kind == "config" else f"tessera default: {configuration}"
    return {"name": name, "kind": kind, "configuration": configuration,
            "seconds": {"min": median_s - spread_s, "median": median_s, "max": median_s + spread_s,
                        "spread": spread_s},
            "gflops": {"median": 1.0}}


def run(configs: dict[str, float], default_gflops: float, finalists: list[dict], verdict: str,
        best: str | None = None, transposes: str = "nn", size: int = 4096, problem_class: str = "large") -> dict:
    results = [result("CLBlast", 600.0, kind="baseline"),
               result(f"tessera default: {DEFAULT}", default_gflops, kind="default", configuration=DEFAULT)]
    results += [result(name, g) for name, g in configs.items()]
    results.append(result("local vw=8 cls=64 item=8x8 wg=16x16", None, status="build_failed"))
    return {"transposes": transposes, "m": size, "n": size, "k": size, "batch": 1, "problem_class": problem_class,
            "configs_total": len(configs) + 1, "partial": False, "results": results,
            "finalists": {"rounds": 7, "entries": finalists},
            "decision": {"verdict": verdict, "best": best, "best_configuration": best,
                         "default": f"tessera default: {DEFAULT}", "default_configuration": DEFAULT,
                         "reason": "the fastest other finalist is not faster than the default by more than the spread"
                         if verdict == "default_kept" else "1.2x the default"}}


def a_win(best_gflops: float = 900.0, size: int = 4096) -> dict:
    """X clearly beats the default in the search and in the re-measurement."""
    return run({X: best_gflops, Y: 300.0}, 500.0,
               [finalist(X, "config", 1.0e-3, 0.01e-3), finalist(Y, "config", 3.0e-3, 0.02e-3),
                finalist(DEFAULT, "default", 1.8e-3, 0.02e-3)], "best", X, size=size)


def a_loss() -> dict:
    """X led the search, but measured again interleaved it is slower than the default."""
    return run({X: 900.0, Y: 300.0}, 850.0,
               [finalist(X, "config", 1.05e-3, 0.02e-3), finalist(Y, "config", 3.0e-3, 0.02e-3),
                finalist(DEFAULT, "default", 1.0e-3, 0.02e-3)], "default_kept")


def write_results(tmp_path: Path, runs: list[dict], name: str = "run.json", **top) -> Path:
    document = {"tool": "tune_all", "date": "2026-11-22T01:00:00Z", "element_type": "float", "epilogue": None,
                "partial": False, "stopped_by": None,
                "device": {"name": "NVIDIA H200", "vendor": "NVIDIA Corporation", "type": "gpu",
                           "architecture": "sm_90"},
                "runs": runs}
    document.update(top)
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def select(tmp_path: Path, *files: Path) -> int:
    return select_defaults.main([*map(str, files), "--target", "nvidia_gpu", "--output_dir", str(tmp_path / "d")])


def entries(tmp_path: Path) -> list[dict]:
    return json.loads((tmp_path / "d" / "nvidia_gpu.json").read_text())["entries"]


def test_a_configuration_that_beat_the_default_is_written(tmp_path):
    assert select(tmp_path, write_results(tmp_path, [a_win()])) == 0
    [entry] = entries(tmp_path)
    assert entry["configuration"] == X
    assert entry["level"] == "name" and entry["match"] == "NVIDIA H200" and entry["element_bytes"] == 4
    assert entry["shape"] == {"m": 4096, "n": 4096, "k": 4096, "batch": 1} and entry["transposes"] == "nn"
    assert entry["architecture"] == "sm_90" and entry["precision"] == "default"
    assert "1.80x the default (re-measured)" in entry["origin"] and "1.50x CLBlast" in entry["origin"]


def test_the_file_holds_one_entry_a_line_and_reads_back_as_written(tmp_path):
    on_h100 = a_win()
    on_h100["measured_by"] = {"rank": 1, "host": "b", "device": "NVIDIA H100 80GB HBM3"}
    devices = [{"name": "NVIDIA H200", "vendor": "NVIDIA Corporation", "type": "gpu", "architecture": "sm_90"},
               {"name": "NVIDIA H100 80GB HBM3", "vendor": "NVIDIA Corporation", "type": "gpu",
                "architecture": "sm_90"}]
    assert select(tmp_path, write_results(tmp_path, [a_win(), on_h100], devices=devices)) == 0
    text = (tmp_path / "d" / "nvidia_gpu.json").read_text()
    document = json.loads(text)
    assert text == select_defaults.database_text(document)
    entry_lines = [line for line in text.splitlines() if line.startswith("    {")]
    assert [json.loads(line.rstrip(",")) for line in entry_lines] == document["entries"]
    assert len(document["entries"]) == 2
    assert select_defaults.database_text({"target": "t", "entries": []}) == '{\n  "target": "t",\n  "entries": []\n}\n'


def test_a_best_slower_than_the_default_writes_no_regression(tmp_path, capsys):
    # The default held: it is the shape's entry (a neighbour's entry would otherwise serve it).
    assert select(tmp_path, write_results(tmp_path, [a_loss()])) == 0
    [entry] = entries(tmp_path)
    assert entry["configuration"] == DEFAULT and entry["shape"] == {"m": 4096, "n": 4096, "k": 4096, "batch": 1}
    assert entry["match"] == "NVIDIA H200" and "the default held" in entry["origin"]
    out = capsys.readouterr().out
    assert f"NVIDIA H200 nn 4096x4096x4096: wrote the default {DEFAULT}: no configuration beat the default" in out
    assert "not faster than the default by more than the spread" in out


def test_runs_of_several_devices_go_to_each_devices_entries(tmp_path):
    # An MPI sweep's file: rank 0's device at the top, each run naming the device that measured it.
    on_h100 = a_win()
    on_h100["measured_by"] = {"rank": 1, "host": "b", "device": "NVIDIA H100 80GB HBM3"}
    on_h200 = a_win()
    on_h200["measured_by"] = {"rank": 0, "host": "a", "device": "NVIDIA H200"}
    devices = [{"name": "NVIDIA H200", "vendor": "NVIDIA Corporation", "type": "gpu", "architecture": "sm_90"},
               {"name": "NVIDIA H100 80GB HBM3", "vendor": "NVIDIA Corporation", "type": "gpu",
                "architecture": "sm_90"}]
    assert select(tmp_path, write_results(tmp_path, [on_h200, on_h100], devices=devices)) == 0
    assert sorted(e["match"] for e in entries(tmp_path)) == ["NVIDIA H100 80GB HBM3", "NVIDIA H200"]
    assert all(e["configuration"] == X for e in entries(tmp_path))


def test_the_existing_entry_is_kept_when_the_default_was_not_beaten(tmp_path, capsys):
    select(tmp_path, write_results(tmp_path, [a_win()], name="first.json"))
    before = (tmp_path / "d" / "nvidia_gpu.json").read_bytes()
    assert select(tmp_path, write_results(tmp_path, [a_loss()], name="second.json")) == 0
    assert (tmp_path / "d" / "nvidia_gpu.json").read_bytes() == before
    out = capsys.readouterr().out
    assert f"kept {X}: no configuration beat the default" in out and "left as it is" in out


def test_a_decision_the_figures_do_not_support_is_refused(tmp_path, capsys):
    forged = a_loss()
    forged["decision"].update(verdict="best", best=X, best_configuration=X)
    assert select(tmp_path, write_results(tmp_path, [forged])) == 1
    assert "does not beat the default by more than the spread" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_a_winner_that_lost_to_the_default_in_another_run_is_not_written(tmp_path, capsys):
    won = write_results(tmp_path, [a_win()], name="won.json")
    lost = write_results(tmp_path, [a_loss()], name="lost.json")
    assert select(tmp_path, won, lost) == 0
    [entry] = entries(tmp_path)  # the default, which held
    assert entry["configuration"] == DEFAULT
    assert "lost to the default in another run" in capsys.readouterr().out


def test_the_better_of_two_runs_is_kept(tmp_path):
    first = write_results(tmp_path, [a_win(900.0)], name="a.json")
    second = write_results(tmp_path, [a_win(950.0)], name="b.json")
    assert select(tmp_path, first, second) == 0
    [entry] = entries(tmp_path)
    assert entry["gflops"] == 950.0
    assert json.loads((tmp_path / "d" / "nvidia_gpu.json").read_text())["sources"] == ["a.json", "b.json"]


def x_at_both_y_at_8192() -> list[dict]:
    """X leads at 4096 and is within 2% at 8192; Y wins 8192 only. Both beat the default."""
    at_4096 = run({X: 1000.0, Y: 900.0}, 500.0,
                  [finalist(X, "config", 1.0e-3, 1e-6), finalist(Y, "config", 1.1e-3, 1e-6),
                   finalist(DEFAULT, "default", 2.0e-3, 1e-6)], "best", X)
    at_8192 = run({X: 1180.0, Y: 1200.0}, 500.0,
                  [finalist(Y, "config", 1.0e-3, 1e-6), finalist(X, "config", 1.02e-3, 1e-6),
                   finalist(DEFAULT, "default", 2.0e-3, 1e-6)], "best", Y, size=8192)
    return [at_4096, at_8192]


def test_a_configuration_that_serves_many_shapes_comes_first(tmp_path):
    # At 8192 X, which serves both tuned shapes, is written first and Y, the shape's fastest, after it.
    assert select(tmp_path, write_results(tmp_path, x_at_both_y_at_8192())) == 0
    written = [(e["shape"]["m"], e["configuration"]) for e in entries(tmp_path)]
    assert written == [(4096, X), (8192, X), (8192, Y)]
    assert "serves 2 tuned shape(s)" in entries(tmp_path)[1]["origin"]
    assert "runner-up" in entries(tmp_path)[2]["origin"]


def test_a_shapes_two_entries_survive_another_selection_and_go_together(tmp_path):
    # The file has 8192's two entries (X shared, Y its runner-up). Selecting another shape keeps
    # both, in order; selecting 8192 again with one winner leaves no stale runner-up behind.
    assert select(tmp_path, write_results(tmp_path, x_at_both_y_at_8192())) == 0
    assert select(tmp_path, write_results(tmp_path, [a_win(size=2048)], name="other.json")) == 0
    written = [(e["shape"]["m"], e["configuration"]) for e in entries(tmp_path)]
    assert written == [(2048, X), (4096, X), (8192, X), (8192, Y)]
    matrix = write_results(tmp_path, [a_matrix_run(8192, {X: 1100.0})], name="matrix.json")
    assert select_defaults.main(["--measured", str(matrix), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    tuned = [(e["shape"]["m"], e["configuration"]) for e in entries(tmp_path) if e.get("role", "tuned") == "tuned"]
    assert tuned == written
    assert select(tmp_path, write_results(tmp_path, [a_win(size=8192)], name="again.json")) == 0
    tuned = [(e["shape"]["m"], e["configuration"]) for e in entries(tmp_path) if e.get("role", "tuned") == "tuned"]
    assert tuned == [(2048, X), (4096, X), (8192, X)]


def test_a_configuration_beyond_the_margin_is_not_written(tmp_path):
    # Y beats the default but is 10% behind X: only X is written (--within 3%).
    at_4096 = run({X: 1000.0, Y: 900.0}, 500.0,
                  [finalist(X, "config", 1.0e-3, 1e-6), finalist(Y, "config", 1.1e-3, 1e-6),
                   finalist(DEFAULT, "default", 2.0e-3, 1e-6)], "best", X)
    assert select(tmp_path, write_results(tmp_path, [at_4096])) == 0
    assert [e["configuration"] for e in entries(tmp_path)] == [X]


def test_entries_for_other_groups_are_kept(tmp_path):
    tt = a_win()
    tt["transposes"] = "tt"
    select(tmp_path, write_results(tmp_path, [tt], name="tt.json"))
    assert select(tmp_path, write_results(tmp_path, [a_win()], name="nn.json")) == 0
    assert [e["transposes"] for e in entries(tmp_path)] == ["nn", "tt"]


def test_a_precision_run_writes_entries_of_its_own_precision(tmp_path):
    """--precision fp16 tunes A and B of 2 bytes: its entry is of element size 2 and precision fp16,
    beside (not in place of) the FP32 entry of the same shape."""
    select(tmp_path, write_results(tmp_path, [a_win()], name="fp32.json"))
    assert select(tmp_path, write_results(tmp_path, [a_win()], name="fp16.json", precision="fp16")) == 0
    by_precision = {e["precision"]: e for e in entries(tmp_path)}
    assert set(by_precision) == {"default", "fp16"}
    assert by_precision["fp16"]["element_bytes"] == 2 and by_precision["default"]["element_bytes"] == 4
    select(tmp_path, write_results(tmp_path, [a_win()], name="tf32.json", precision="tf32"))
    assert {e["precision"]: e["element_bytes"] for e in entries(tmp_path)} == {"default": 4, "fp16": 2, "tf32": 4}


def test_an_unknown_precision_is_named(tmp_path, capsys):
    assert select(tmp_path, write_results(tmp_path, [a_win()], precision="fp8")) != 0
    err = capsys.readouterr().err
    assert "precision" in err and "fp8" in err


def test_partial_and_older_runs_are_not_used(tmp_path, capsys):
    partial = a_win()
    partial["partial"] = True
    older = a_win()
    del older["finalists"], older["decision"]
    older["transposes"] = "nt"
    path = write_results(tmp_path, [partial, older], partial=True, stopped_by="SIGINT")
    assert select(tmp_path, path) == 0
    assert not (tmp_path / "d" / "nvidia_gpu.json").exists()
    out = capsys.readouterr().out
    assert "nn 4096x4096x4096: not used: the run was stopped before it was complete (SIGINT)" in out
    assert "nt 4096x4096x4096: not used: no finalists' re-measurement" in out


def test_a_run_tuned_with_an_epilogue_is_refused(tmp_path, capsys):
    assert select(tmp_path, write_results(tmp_path, [a_win()], epilogue="bias_relu")) == 1
    assert "$.epilogue is 'bias_relu'" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_zero_gflops_is_a_named_error_not_a_crash(tmp_path, capsys):
    zero = a_win()
    zero["results"][2]["gflops"] = {"min": 0.0, "median": 0.0, "max": 0.0}
    assert select(tmp_path, write_results(tmp_path, [zero])) == 1
    assert "$.runs[0].results[2].gflops.median: expected a positive number, got 0.0" in capsys.readouterr().err


def test_a_problem_class_the_build_rejects_is_refused(tmp_path, capsys):
    bad = a_win()
    bad["problem_class"] = "huge"
    assert select(tmp_path, write_results(tmp_path, [bad])) == 1
    assert "$.runs[0].problem_class: expected one of small, medium, large, batched, got 'huge'" in capsys.readouterr().err


def test_a_device_name_the_build_rejects_is_refused_before_writing(tmp_path, capsys):
    path = write_results(tmp_path, [a_win()])
    document = json.loads(path.read_text())
    document["device"]["name"] = 'GPU "9000"'
    path.write_text(json.dumps(document))
    assert select(tmp_path, path) == 1
    assert "$.entries[0].match: quotes, backslashes and newlines are not allowed" in capsys.readouterr().err
    assert not (tmp_path / "d" / "nvidia_gpu.json").exists()


def test_bad_results_are_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"device": {"name": "x", "vendor": "y", "type": "gpu"}, "runs": [{"m": 1}]}))
    assert select(tmp_path, bad) == 1
    assert "bad.json: $.runs[0]: missing key 'results'" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_non_utf8_results_are_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"device": "\xff"}')
    assert select(tmp_path, bad) == 1
    assert "bad.json: not UTF-8 text" in capsys.readouterr().err


def test_an_unwritable_output_folder_is_named(tmp_path, capsys):
    blocker = tmp_path / "d"
    blocker.write_text("a file where the folder should be")
    assert select(tmp_path, write_results(tmp_path, [a_win()])) == 1
    assert str(blocker) in capsys.readouterr().err


def test_defaults_table_renders_x_macro_lines(tmp_path):
    select(tmp_path, write_results(tmp_path, [a_win()]))
    out = tmp_path / "table.def"
    assert defaults_table.main([str(out), str(tmp_path / "d" / "nvidia_gpu.json")]) == 0
    lines = [line for line in out.read_text().splitlines() if line.startswith("TESSERA_GEMM_")]
    assert lines == [f'TESSERA_GEMM_TUNED("NVIDIA H200", "sm_90", 4, "nn", 4096, 4096, 4096, 1, "default", "{X}", '
                     '"tuned 2026-11-22 on NVIDIA H200 at 4096x4096x4096: serves 1 tuned shape(s), 1.000 of this '
                     'one\'s best, 900 GFLOP/s, 1.80x the default (re-measured), 1.50x CLBlast")']


def test_defaults_table_renders_a_problem_class_entry(tmp_path):
    path = tmp_path / "classes.json"
    path.write_text(json.dumps({"entries": [{"level": "vendor", "match": "nvidia", "element_bytes": 4,
                                              "transposes": "any", "problem": "large", "configuration": X,
                                              "origin": "hand"}]}))
    out = tmp_path / "table.def"
    assert defaults_table.main([str(out), str(path)]) == 0
    assert f'TESSERA_GEMM_DEFAULT(vendor, "nvidia", 4, "any", "large", "{X}", "hand")' in out.read_text()


def test_defaults_table_rejects_a_bad_shape(tmp_path, capsys):
    select(tmp_path, write_results(tmp_path, [a_win()]))
    path = tmp_path / "d" / "nvidia_gpu.json"
    document = json.loads(path.read_text())
    document["entries"][0]["shape"]["k"] = 0
    path.write_text(json.dumps(document))
    assert defaults_table.main([str(tmp_path / "table.def"), str(path)]) == 1
    assert "$.entries[0].shape.k: expected a whole number" in capsys.readouterr().err


def test_defaults_table_rejects_a_bad_level(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"entries": [{"level": "planet", "match": "x", "element_bytes": 4, "transposes": "nn",
                                            "problem": "large", "configuration": "naive", "origin": "o"}]}))
    assert defaults_table.main([str(tmp_path / "t.def"), str(bad)]) == 1
    assert "$.entries[0].level" in capsys.readouterr().err


def test_plot_is_a_png(tmp_path):
    out = tmp_path / "plot.png"
    assert plot_results.main([str(write_results(tmp_path, [a_win()])), "--output", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_to_a_missing_folder_is_named_not_a_traceback(tmp_path, capsys):
    out = tmp_path / "missing" / "plot.png"
    assert plot_results.main([str(write_results(tmp_path, [a_win()])), "--output", str(out)]) == 1
    assert "missing/plot.png: its folder" in capsys.readouterr().err


def shapes_document() -> dict:
    def shape(label: str, tessera: float | None, clblast: float) -> dict:
        return {"label": label, "m": 1, "n": 1, "k": 1, "batch": 1, "transposes": "nn", "weight": 1,
                "results": {"tessera": {"status": "ok" if tessera else "wrong_result", "gflops": tessera},
                            "CLBlast": {"status": "ok", "gflops": clblast}}}
    return {"device": "a GPU", "shapes": [shape("1x1x1 nn", 10.0, 5.0), shape("2x2x2 nn", None, 4.0)],
            "summary": {"CLBlast": {"geomean": 2.0, "min": 2.0}}}


def test_plot_shapes_is_a_png_and_skips_failed_rows(tmp_path):
    path = tmp_path / "shapes.json"
    path.write_text(json.dumps(shapes_document()))
    assert plot_shapes.ratios(shapes_document()) == {"CLBlast": [2.0, None]}
    assert plot_shapes.main([str(path), str(tmp_path / "shapes.png")]) == 0
    assert (tmp_path / "shapes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_shapes_names_a_file_that_is_not_benchmark_output(tmp_path, capsys):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"runs": []}))
    assert plot_shapes.main([str(path), str(tmp_path / "x.png")]) == 1
    assert "$.shapes: expected a list" in capsys.readouterr().err


def a_matrix_run(size: int, timings: dict[str, float], transposes: str = "nn") -> dict:
    """A run of the tuner built with the database's configurations alone: every one timed, no budget."""
    return run(timings, timings.get(DEFAULT, 100.0), [finalist(DEFAULT, "default", 1.0e-3, 0.01e-3)], "default_kept",
               transposes=transposes, size=size)


def test_measured_runs_give_each_tuned_shape_one_entry_per_configuration_timed(tmp_path, capsys):
    sweep = write_results(tmp_path, [a_win()])
    matrix = write_results(tmp_path, [a_matrix_run(4096, {X: 950.0, Y: 310.0}), a_matrix_run(1000, {X: 5.0})],
                           name="matrix.json")
    assert select_defaults.main([str(sweep), "--measured", str(matrix), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    written = entries(tmp_path)
    tuned = [e for e in written if e.get("role", "tuned") == "tuned"]
    measured = {e["configuration"]: e for e in written if e.get("role") == "measured"}
    assert [e["configuration"] for e in tuned] == [X]
    # Every configuration timed at the tuned shape (the default row's too); the untuned 1000^3 left out.
    assert set(measured) == {X, Y, DEFAULT}
    assert measured[X]["gflops"] == 950.0 and measured[Y]["gflops"] == 310.0
    assert all(e["shape"] == {"m": 4096, "n": 4096, "k": 4096, "batch": 1} for e in measured.values())
    assert measured[X]["origin"].startswith("measured 2026-11-22 on NVIDIA H200 at 4096x4096x4096")
    assert "matrix.json nn 4096x4096x4096: 3 configurations measured" in capsys.readouterr().out
    # Measured again: the shape's measured entries are replaced, not added to.
    again = write_results(tmp_path, [a_matrix_run(4096, {X: 970.0})], name="again.json")
    assert select_defaults.main([str(sweep), "--measured", str(again), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    measured = [e for e in entries(tmp_path) if e.get("role") == "measured"]
    assert {e["configuration"]: e["gflops"] for e in measured} == {X: 970.0, DEFAULT: 100.0}


def test_evidence_shapes_take_measured_entries_without_a_tuned_one(tmp_path, capsys):
    sweep = write_results(tmp_path, [a_win()])
    assert select_defaults.main([str(sweep), "--target", "nvidia_gpu", "--output_dir", str(tmp_path / "d")]) == 0
    tuned_before = [e for e in entries(tmp_path) if e.get("role", "tuned") == "tuned"]
    evidence = tmp_path / "coverage.json"
    evidence.write_text(json.dumps({"shapes": [{"m": 1000, "n": 1000, "k": 1000, "transposes": "nn"},
                                               {"m": 1000, "n": 1000, "k": 1000, "batch": 1, "transposes": "tt"}]}))
    # 1000^3 nn is evidence; 2000^3 nn (held out) and 1000^3 nt are not, though the matrix timed them.
    matrix = write_results(tmp_path, [a_matrix_run(1000, {X: 700.0, Y: 650.0}), a_matrix_run(2000, {X: 800.0}),
                                      a_matrix_run(1000, {X: 600.0}, transposes="nt")], name="matrix.json")
    # Measured entries alone: no tune_* runs, so every tuned entry stays as it was.
    assert select_defaults.main(["--measured", str(matrix), "--evidence", str(evidence), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    written = entries(tmp_path)
    assert [e for e in written if e.get("role", "tuned") == "tuned"] == tuned_before
    measured = [e for e in written if e.get("role") == "measured"]
    assert {(e["configuration"], e["gflops"]) for e in measured} == {(X, 700.0), (Y, 650.0), (DEFAULT, 100.0)}
    assert all(e["shape"] == {"m": 1000, "n": 1000, "k": 1000, "batch": 1} and e["transposes"] == "nn"
               for e in measured)
    assert "matrix.json nn 1000x1000x1000: 3 configurations measured" in capsys.readouterr().out


def test_added_runs_give_new_configurations_entries_scaled_onto_the_database(tmp_path, capsys):
    Z = "local cache_line_bytes=64 item=4x12 wg=16x8 vector_width=4"
    sweep = write_results(tmp_path, [a_win()])
    matrix = write_results(tmp_path, [a_matrix_run(4096, {X: 950.0, Y: 310.0})], name="matrix.json")
    assert select_defaults.main([str(sweep), "--measured", str(matrix), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    before = [e for e in entries(tmp_path)]
    # A faster machine: X, Y and the default row ran 2x, 2.2x and 1.9x the database's figures there
    # (median 2x), so Z's 1000 GFLOP/s counts as 500 beside them. X's text is written in another
    # form than the database's (every parameter spelled out): still the same configuration.
    x_today = "local cache_line_bytes=64 item=8x8 batch_tile=1x1 wg=16x16 vector_width=4"
    added = write_results(tmp_path, [a_matrix_run(4096, {x_today: 1900.0, Y: 682.0, Z: 1000.0, DEFAULT: 190.0}),
                                     a_matrix_run(1000, {X: 10.0, Z: 12.0}),
                                     a_matrix_run(4096, {X: 1900.0, Z: 1000.0}, transposes="tt")], name="added.json")
    # Only two configurations in common at 4096^3 tt (none measured there): not added either.
    assert select_defaults.main(["--added", str(added), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    after = entries(tmp_path)
    new = [e for e in after if e not in before]
    assert [e for e in before if e not in after] == []
    [z] = new
    assert z["configuration"] == Z and z["role"] == "measured" and z["gflops"] == 500.0
    assert z["shape"] == {"m": 4096, "n": 4096, "k": 4096, "batch": 1} and z["transposes"] == "nn"
    assert "beside 3 configurations the database measured there" in z["origin"] and "scaled by 0.500" in z["origin"]
    out = capsys.readouterr().out
    assert "added.json nn 4096x4096x4096: 1 configurations added, scaled by 0.500" in out
    assert "added.json nn 1000x1000x1000: not added: the database measured nothing there" in out
    assert "added.json tt 4096x4096x4096: not added: the database measured nothing there" in out
    assert "added.json" in json.loads((tmp_path / "d" / "nvidia_gpu.json").read_text())["sources"]


def measured_at_4096(tmp_path) -> list:
    """A database with X, Y and the default measured at 4096^3 NN; its entries."""
    sweep = write_results(tmp_path, [a_win()])
    matrix = write_results(tmp_path, [a_matrix_run(4096, {X: 950.0, Y: 310.0})], name="matrix.json")
    assert select_defaults.main([str(sweep), "--measured", str(matrix), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    return entries(tmp_path)


def assert_not_added(tmp_path, capsys, added, before, message: str) -> None:
    assert select_defaults.main(["--added", str(added), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    assert entries(tmp_path) == before
    assert f"added.json nn 4096x4096x4096: not added: {message}" in capsys.readouterr().out


def test_an_added_run_needs_three_configurations_in_common(tmp_path, capsys):
    before = measured_at_4096(tmp_path)
    added = write_results(tmp_path, [a_matrix_run(4096, {X: 1900.0, "local vw=4 cls=64 item=4x12 wg=16x8": 9.0})],
                          name="added.json")
    # The default row's configuration is timed too: X and DEFAULT, two in common.
    assert_not_added(tmp_path, capsys, added, before,
                     "2 configurations timed by both the run and the database, at least 3 needed")


def test_an_added_run_whose_common_configurations_disagree_on_the_scale_is_not_added(tmp_path, capsys):
    before = measured_at_4096(tmp_path)
    # X ran as the database says, Y twice and the default row three times as fast: the database's
    # figures there were not taken with the run's kernels, and no one scale carries Z over.
    added = write_results(tmp_path, [a_matrix_run(4096, {X: 950.0, Y: 620.0, "local vw=4 cls=64 item=4x12 wg=16x8": 700.0})],
                          name="added.json")
    [default_there] = [e["gflops"] for e in before if e["configuration"] == DEFAULT and e.get("role") == "measured"]
    run = json.loads(added.read_text())
    [default_row] = [r for r in run["runs"][0]["results"] if r.get("configuration") == DEFAULT]
    scale = 3.0 * default_there / default_row["gflops"]["median"]
    default_row["gflops"] = {k: v * scale for k, v in default_row["gflops"].items()}
    added.write_text(json.dumps(run))
    assert_not_added(tmp_path, capsys, added, before,
                     "the 3 configurations timed by both the run and the database disagree on the scale")


def test_evidence_and_runs_are_checked(tmp_path, capsys):
    out = ["--target", "nvidia_gpu", "--output_dir", str(tmp_path / "d")]
    assert select_defaults.main(out) == 1
    assert "no runs: give tune_* --json results, or --measured or --added runs" in capsys.readouterr().err
    sweep = write_results(tmp_path, [a_win()])
    evidence = tmp_path / "coverage.json"
    evidence.write_text(json.dumps({"shapes": [{"m": 10, "n": 10, "k": 10}]}))
    assert select_defaults.main([str(sweep), "--evidence", str(evidence), *out]) == 1
    assert "--evidence names shapes for --measured runs, and none were given" in capsys.readouterr().err
    matrix = write_results(tmp_path, [a_matrix_run(4096, {X: 950.0})], name="matrix.json")
    for text, message in (("{", "the evidence shape file cannot be read"),
                          ('{"runs": []}', "$.shapes: expected a list of shapes"),
                          ('{"shapes": [{"m": 10, "n": 0, "k": 10}]}', "$.shapes[0]: m, n, k (and batch): expected"),
                          ('{"shapes": [{"m": 10, "n": 10, "k": 10, "transposes": "nx"}]}',
                           "$.shapes[0].transposes: expected nn, nt, tn or tt, got 'nx'")):
        evidence.write_text(text)
        assert select_defaults.main(["--measured", str(matrix), "--evidence", str(evidence), *out]) == 1
        err = capsys.readouterr().err
        assert str(evidence) in err and message in err, err
    assert not (tmp_path / "d" / "nvidia_gpu.json").exists()


def test_a_stopped_measured_run_is_not_used(tmp_path, capsys):
    sweep = write_results(tmp_path, [a_win()])
    stopped = a_matrix_run(4096, {X: 950.0})
    stopped["partial"] = True
    matrix = write_results(tmp_path, [stopped], name="matrix.json")
    assert select_defaults.main([str(sweep), "--measured", str(matrix), "--target", "nvidia_gpu",
                                 "--output_dir", str(tmp_path / "d")]) == 0
    assert not [e for e in entries(tmp_path) if e.get("role") == "measured"]
    assert "measurements not used: the run was stopped" in capsys.readouterr().out


def test_defaults_table_renders_measured_entries_and_rejects_bad_ones(tmp_path, capsys):
    sweep = write_results(tmp_path, [a_win()])
    matrix = write_results(tmp_path, [a_matrix_run(4096, {Y: 310.0})], name="matrix.json")
    select_defaults.main([str(sweep), "--measured", str(matrix), "--target", "nvidia_gpu",
                          "--output_dir", str(tmp_path / "d")])
    path = tmp_path / "d" / "nvidia_gpu.json"
    out = tmp_path / "table.def"
    assert defaults_table.main([str(out), str(path)]) == 0
    assert (f'TESSERA_GEMM_MEASURED("NVIDIA H200", "sm_90", 4, "nn", 4096, 4096, 4096, 1, "default", "{Y}", 310.0, '
            '"measured 2026-11-22 on NVIDIA H200 at 4096x4096x4096: one of 2 configurations timed there")'
            in out.read_text())
    document = json.loads(path.read_text())
    index = next(i for i, e in enumerate(document["entries"]) if e.get("role") == "measured")
    for change, message in ((lambda e: e.update(gflops=0), "gflops: a measured entry's GFLOP/s"),
                            (lambda e: e.pop("shape"), "shape: a measured entry is a tuned shape's"),
                            (lambda e: e.update(role="guessed"), "role: expected 'tuned' or 'measured'"),
                            (lambda e: e.update(gflops="fast"), "gflops: expected a finite number")):
        bad = json.loads(json.dumps(document))
        change(bad["entries"][index])
        path.write_text(json.dumps(bad))
        assert defaults_table.main([str(out), str(path)]) == 1
        assert f"$.entries[{index}].{message}" in capsys.readouterr().err
