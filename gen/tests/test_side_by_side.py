import gzip
import json

import pytest

import side_by_side
from shape_bench import ShapesError


def shape(label, configuration, tessera, cublas=150.0, clblast=60.0, suite="configs/shapes/x.json"):
    def row(g):
        return {"status": "ok" if g else "failed", "reason": "", "gflops": g}
    return {"suite": suite, "label": label, "configuration": configuration,
            "results": {"tessera": row(tessera), "cuBLAS (no TF32)": row(cublas), "CLBlast": row(clblast)}}


def write(path, shapes, compress=False):
    text = json.dumps({"tool": "bench_gemm_shapes", "shapes": shapes})
    if compress:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def passes(tmp_path, name, rows_per_pass, compress=False):
    suffix = ".json.gz" if compress else ".json"
    return [write(tmp_path / f"{name}{i}{suffix}", rows, compress) for i, rows in enumerate(rows_per_pass)]


def test_changed_picks_and_control_are_compared_by_tesseras_own_speed(tmp_path):
    # A: the changed shape at 100 and 100 GFLOP/s, B at 110 and 130 (geometric mean 119.6); cuBLAS
    # at 150 in A's passes and 100 in B's: per pass B's ratio would read 1.2-1.3x A's.
    a = passes(tmp_path, "a", [[shape("1x2x3 nn", "c1", 100.0), shape("4x5x6 tn", "same", 80.0, cublas=200.0)]] * 2)
    b = passes(tmp_path, "b", [[shape("1x2x3 nn", "c2", 110.0, cublas=100.0), shape("4x5x6 tn", "same", 80.0)],
                               [shape("1x2x3 nn", "c2", 130.0, cublas=100.0), shape("4x5x6 tn", "same", 88.0)]],
               compress=True)
    result = side_by_side.compare(a, b)
    changed = result["groups"]["all changed picks"]
    assert changed["shapes"] == 1
    assert changed["b_over_a"] == pytest.approx((110.0 * 130.0) ** 0.5 / 100.0)
    cublas = (150.0 * 150.0 * 100.0 * 100.0) ** 0.25
    assert changed["a_over_cublas"] == pytest.approx(100.0 / cublas)  # 0.816
    assert changed["a_below_0.75x_cublas"] == 0 and changed["b_below_0.75x_cublas"] == 0
    assert changed["moved_up"] == 1 and changed["moved_down"] == 0
    control = result["groups"]["x.json, control"]
    assert control["shapes"] == 1 and control["b_over_a"] == pytest.approx((80.0 * 88.0) ** 0.5 / 80.0)
    assert control["a_below_0.75x_cublas"] == 1  # 80 over cuBLAS's 200, 200, 150, 150
    assert result["steadiness"]["b"] == [pytest.approx(((130.0 / 110.0) * (88.0 / 80.0)) ** 0.5)]
    assert result["failed"] == []


def test_a_shape_whose_tessera_row_failed_is_left_out_and_named(tmp_path):
    a = passes(tmp_path, "a", [[shape("1x2x3 nn", "c1", 100.0), shape("7x7x7 nt", "c1", None)]])
    b = passes(tmp_path, "b", [[shape("1x2x3 nn", "c2", 50.0), shape("7x7x7 nt", "c2", 90.0)]])
    result = side_by_side.compare(a, b)
    assert result["failed"] == ["7x7x7 nt"]
    assert result["groups"]["all changed picks"]["shapes"] == 1
    assert result["groups"]["all changed picks"]["moved_down"] == 1
    assert "7x7x7 nt" in side_by_side.report(result)


def test_passes_over_other_shapes_are_refused_with_the_file_and_shape_named(tmp_path):
    a = passes(tmp_path, "a", [[shape("1x2x3 nn", "c1", 100.0)]])
    b = passes(tmp_path, "b", [[shape("1x2x3 nn", "c1", 100.0), shape("9x9x9 tt", "c1", 100.0)]])
    with pytest.raises(ShapesError, match=r"b0\.json: not the shapes of .*a0\.json: 9x9x9 tt"):
        side_by_side.compare(a, b)


def test_main_writes_the_comparison_and_names_a_file_that_is_not_benchmark_output(tmp_path, capsys):
    a = passes(tmp_path, "a", [[shape("1x2x3 nn", "c1", 100.0)]])
    b = passes(tmp_path, "b", [[shape("1x2x3 nn", "c2", 120.0)]])
    out = tmp_path / "sbs.json"
    assert side_by_side.main(["--a", str(a[0]), "--b", str(b[0]), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["groups"]["all changed picks"]["b_over_a"] == pytest.approx(1.2)
    assert "all changed picks | 1 | 1.200" in capsys.readouterr().out
    bad = tmp_path / "bad.json"
    bad.write_text("{\"shapes\": 3}")
    assert side_by_side.main(["--a", str(a[0]), "--b", str(bad)]) == 1
    assert "bad.json: $.shapes: expected a list" in capsys.readouterr().err
