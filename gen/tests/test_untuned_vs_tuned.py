import gzip
import json
import math

import pytest

import untuned_vs_tuned
from shape_bench import ShapesError

TUNED, UNTUNED = "configs/shapes/square.json", "configs/shapes/held_out.json"


def shape(m, n, k, transposes, tessera, cublas, suite, batch=1):
    def row(g):
        return {"status": "ok" if g else "failed", "reason": "", "gflops": g}
    label = f"{m}x{n}x{k} {transposes}" + (f", batch {batch}" if batch > 1 else "")
    return {"suite": suite, "label": label, "m": m, "n": n, "k": k, "batch": batch, "transposes": transposes,
            "configuration": "c", "results": {"tessera": row(tessera), "cuBLAS (no TF32)": row(cublas)}}


def write(path, shapes, compress=False):
    text = json.dumps({"tool": "bench_gemm_shapes", "shapes": shapes})
    path.write_bytes(gzip.compress(text.encode())) if compress else path.write_text(text)
    return path


def test_each_untuned_shape_is_compared_with_its_nearest_tuned_shape_over_the_passes(tmp_path):
    # Two passes. Tuned: 1024^3 nn at 0.9x and 0.8x cuBLAS, 4096^3 nn at 1.0x. Untuned: 1100^3 nn
    # (nearest 1024^3, though 4096^3 is faster) at 0.6x and 0.9x; 1024^3 tn (the same sizes as the
    # tuned 1024^3 nn, other transposes: distance 1) nearer 1024^3 nn than 4096^3 nn (distance 2.08).
    first = [shape(1024, 1024, 1024, "nn", 90.0, 100.0, TUNED), shape(4096, 4096, 4096, "nn", 100.0, 100.0, TUNED),
             shape(1100, 1100, 1100, "nn", 60.0, 100.0, UNTUNED), shape(1024, 1024, 1024, "tn", 50.0, 100.0, UNTUNED)]
    second = [shape(1024, 1024, 1024, "nn", 80.0, 100.0, TUNED), shape(4096, 4096, 4096, "nn", 100.0, 100.0, TUNED),
              shape(1100, 1100, 1100, "nn", 90.0, 100.0, UNTUNED), shape(1024, 1024, 1024, "tn", 50.0, 100.0, UNTUNED)]
    result = untuned_vs_tuned.compare([write(tmp_path / "p1.json", first), write(tmp_path / "p2.json.gz", second, True)],
                                      ["held_out.json"])
    by_label = {s["label"]: s for s in result["shapes"]}
    tuned_1024 = math.sqrt(0.9 * 0.8)
    assert by_label["1024x1024x1024 nn"]["ratio"] == pytest.approx(tuned_1024)
    assert by_label["1100x1100x1100 nn"]["nearest_tuned"] == "1024x1024x1024 nn"
    assert by_label["1100x1100x1100 nn"]["over_nearest_tuned"] == pytest.approx(math.sqrt(0.6 * 0.9) / tuned_1024)
    assert by_label["1024x1024x1024 tn"]["nearest_tuned"] == "1024x1024x1024 nn"
    assert result["tuned"]["shapes"] == 2 and result["untuned"]["shapes"] == 2
    assert result["untuned"]["geomean"] == pytest.approx((math.sqrt(0.6 * 0.9) * 0.5) ** 0.5)
    assert result["untuned"]["min"] == pytest.approx(0.5) and result["untuned"]["below_0.75x"] == 2
    assert result["suites"][UNTUNED]["untuned"] and not result["suites"][TUNED]["untuned"]
    assert result["untuned"]["over_nearest_tuned"] == pytest.approx(
        ((math.sqrt(0.6 * 0.9) / tuned_1024) * (0.5 / tuned_1024)) ** 0.5)
    text = untuned_vs_tuned.report(result)
    assert "held_out.json (untuned) | 2 |" in text and "all tuned | 2 |" in text


def test_the_distance_is_the_lookups():
    # blas::shape_distance: log ratios of m and n, half of k's, batch's; 1 more for other transposes.
    a = {"m": 1000, "n": 100, "k": 400, "batch": 1, "transposes": "nn"}
    b = {"m": 100, "n": 100, "k": 100, "batch": 4, "transposes": "nt"}
    expected = math.sqrt(math.log(10) ** 2 + (0.5 * math.log(4)) ** 2 + math.log(4) ** 2) + 1.0
    assert untuned_vs_tuned.shape_distance(a, b) == pytest.approx(expected)
    assert untuned_vs_tuned.shape_distance(b, a) == pytest.approx(expected)
    assert untuned_vs_tuned.shape_distance(a, a) == 0.0


def test_failed_rows_are_left_out_and_named(tmp_path):
    rows = [shape(64, 64, 64, "nn", 10.0, 10.0, TUNED), shape(65, 65, 65, "nn", None, 10.0, UNTUNED),
            shape(66, 66, 66, "nn", 9.0, 10.0, UNTUNED)]
    result = untuned_vs_tuned.compare([write(tmp_path / "p.json", rows)], [UNTUNED])
    assert result["failed"] == [f"65x65x65 nn ({UNTUNED})"]
    assert result["untuned"]["shapes"] == 1
    assert "65x65x65 nn" in untuned_vs_tuned.report(result)


@pytest.mark.parametrize("untuned, message", [(["nowhere.json"], "--untuned nowhere.json: no such suite"),
                                              ([TUNED, UNTUNED], "every suite of the run is named untuned")])
def test_bad_suite_lists_are_refused_by_name(tmp_path, capsys, untuned, message):
    path = write(tmp_path / "p.json", [shape(64, 64, 64, "nn", 10.0, 10.0, TUNED),
                                       shape(65, 65, 65, "nn", 9.0, 10.0, UNTUNED)])
    with pytest.raises(ShapesError, match=message):
        untuned_vs_tuned.compare([path], untuned)
    out = tmp_path / "out.json"
    assert untuned_vs_tuned.main([str(path), "--untuned", *untuned, "--json", str(out)]) == 1
    assert message.split(":")[0] in capsys.readouterr().err
    assert not out.exists()


def test_passes_of_other_shapes_are_refused(tmp_path):
    one = write(tmp_path / "a.json", [shape(64, 64, 64, "nn", 10.0, 10.0, TUNED)])
    other = write(tmp_path / "b.json", [shape(65, 65, 65, "nn", 10.0, 10.0, TUNED)])
    with pytest.raises(ShapesError, match="not the shapes of"):
        untuned_vs_tuned.compare([one, other], [UNTUNED])


def test_the_command_writes_its_json(tmp_path, capsys):
    path = write(tmp_path / "p.json", [shape(64, 64, 64, "nn", 10.0, 10.0, TUNED),
                                       shape(65, 65, 65, "nn", 9.0, 10.0, UNTUNED)])
    out = tmp_path / "out.json"
    assert untuned_vs_tuned.main([str(path), "--untuned", "held_out.json", "--json", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["untuned"]["over_nearest_tuned"] == pytest.approx(0.9)
    assert "all untuned | 1 | 0.900" in capsys.readouterr().out
