"""draw_shapes.py, and the evidence shape file it drew."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import draw_shapes

ROOT = Path(__file__).resolve().parents[2]


def key(shape: dict) -> tuple:
    return shape["m"], shape["n"], shape["k"], shape.get("batch", 1), shape.get("transposes", "nn")


def test_a_seed_draws_the_same_shapes_within_the_bounds():
    shapes = draw_shapes.draw(7, 200)
    assert shapes == draw_shapes.draw(7, 200) and shapes != draw_shapes.draw(8, 200)
    assert len({key(s) for s in shapes}) == 200
    for s in shapes:
        assert draw_shapes.MIN_FLOPS <= 2.0 * s["m"] * s["n"] * s["k"] * s["batch"] <= draw_shapes.MAX_FLOPS
        assert s["transposes"] in ("nn", "nt", "tn", "tt")
        if s["batch"] == 1:
            assert 16 <= s["m"] <= 8192 and 16 <= s["n"] <= 8192 and 16 <= s["k"] <= 16384
        else:
            assert all(8 <= x <= 256 for x in (s["m"], s["n"], s["k"])) and 8 <= s["batch"] <= 4096
    # Both kinds are drawn.
    assert any(s["batch"] > 1 for s in shapes) and any(s["batch"] == 1 for s in shapes)


HELD_OUT = [ROOT / "configs/shapes/held_out.json", ROOT / "configs/shapes/untuned_random.json",
            ROOT / "benchmark/gemm/untuned_check_shapes.json", ROOT / "benchmark/gemm/fresh_check_shapes.json",
            ROOT / "benchmark/gemm/weak_shapes_h200_2026-11-29.json",
            ROOT / "benchmark/gemm/fill_weight_check_shapes.json", ROOT / "benchmark/gemm/short_k_check_shapes.json",
            ROOT / "benchmark/gemm/fill_damping_check_shapes.json",
            ROOT / "benchmark/gemm/split_credit_check_shapes.json",
            ROOT / "benchmark/gemm/tail_split_check_shapes.json",
            ROOT / "benchmark/gemm/thin_transposes_check_shapes.json",
            ROOT / "benchmark/gemm/hard_regimes_check_shapes.json",
            ROOT / "benchmark/gemm/short_k_narrow_check_shapes.json",
            ROOT / "benchmark/gemm/any_regime_check_shapes.json",
            ROOT / "benchmark/gemm/mid_size_check_shapes.json"]


def shapes_of(path: Path) -> set:
    return {key(s) for s in json.loads(path.read_text())["shapes"]}


def assert_shares_no_shape(shapes: set, paths: list[Path]) -> None:
    for path in paths:
        assert not shapes & shapes_of(path), path.name


@pytest.mark.parametrize("name, seed, regime, count", [("coverage.json", 20261130, "any", 64),
                                                      ("coverage_second_draw.json", 20261202, "any", 64),
                                                      ("short_side_draw.json", 20261206, "short-side", 16),
                                                      ("short_k_draw.json", 20261208, "short-k", 16),
                                                      ("short_k_second_draw.json", 2026120211, "short-k", 18),
                                                      ("narrow_draw.json", 2026120212, "narrow", 14),
                                                      ("mid_size_draw.json", 2026120301, "mid-size", 12),
                                                      ("mid_size_second_draw.json", 2026120304, "mid-size", 40)])
def test_each_evidence_file_is_its_draw_and_shares_no_shape_with_a_held_out_one(name, seed, regime, count):
    drawn = json.loads((ROOT / "configs/shapes" / name).read_text())
    assert drawn["shapes"] == draw_shapes.draw(seed, count, regime)
    assert_shares_no_shape({key(s) for s in drawn["shapes"]}, HELD_OUT)


@pytest.mark.parametrize("name, firsts, regimes, count",
                         [("fill_weight_check_shapes.json", (2026113001, 2026113011), ("any", "short-side", "long-k", "narrow"),
                           60),
                          ("short_k_check_shapes.json", (2026113021, 2026113031),
                           ("any", "short-k", "short-side", "long-k", "narrow"), 60),
                          ("fill_damping_check_shapes.json", (2026113041, 2026113051),
                           ("any", "short-k", "short-side", "long-k", "narrow"), 60),
                          ("split_credit_check_shapes.json", (2026120101, 2026120111),
                           ("any", "short-k", "short-side", "long-k", "narrow"), 60),
                          ("tail_split_check_shapes.json", (2026120141, 2026120151), ("any", "long-k", "short-side"), 500),
                          ("thin_transposes_check_shapes.json", (2026120171,), ("any", "long-k", "short-side", "narrow"),
                           300),
                          ("hard_regimes_check_shapes.json", (2026120201,), ("long-k", "short-side", "short-k", "narrow"),
                           16),
                          ("short_k_narrow_check_shapes.json", (2026120213,), ("short-k", "narrow"), 300),
                          ("any_regime_check_shapes.json", (2026120215,), ("any",), 64),
                          ("mid_size_check_shapes.json", (2026120302,), ("mid-size",), 64)])
def test_each_check_file_is_its_draws(name, firsts, regimes, count):
    # Each first seed starts one draw of `count` shapes per regime, the regimes in order.
    drawn = [s for first in firsts for i, regime in enumerate(regimes) for s in draw_shapes.draw(first + i, count, regime)]
    assert json.loads((ROOT / "benchmark/gemm" / name).read_text())["shapes"] == drawn


def test_the_narrow_tuning_shapes_share_no_shape_with_a_held_out_one():
    narrow = shapes_of(ROOT / "configs/shapes/narrow_tune.json")
    assert len(narrow) == 16 and all(min(m, n) <= 128 for m, n, *_ in narrow)
    assert_shares_no_shape(narrow, HELD_OUT)


@pytest.mark.parametrize("name, count", [("long_shapes.json", 10), ("k_groups_shapes.json", 6),
                                         ("tall_mid_k_shapes.json", 4), ("ninety_six_shapes.json", 12),
                                         ("beside_shapes.json", 49), ("beside_mid_shapes.json", 31),
                                         ("fill_shapes.json", 113), ("short_k_fill_shapes.json", 146)])
def test_each_drawn_split_probe_shares_no_shape_with_a_held_out_one(name, count):
    probe = shapes_of(ROOT / "benchmark/gemm/split_probe" / name)
    assert len(probe) == count
    assert_shares_no_shape(probe, HELD_OUT)


def test_the_long_k_regime_draws_long_k_beside_few_blocks():
    shapes = draw_shapes.draw(11, 200, "long-k")
    assert shapes == draw_shapes.draw(11, 200, "long-k") and len({key(s) for s in shapes}) == 200
    for s in shapes:
        m, n, k = s["m"], s["n"], s["k"]
        assert s["batch"] == 1 and 32 <= m <= 8192 and 32 <= n <= 8192 and 1024 <= k <= 16384
        assert k * k >= m * n and -(-m // 128) * -(-n // 64) <= draw_shapes.LONG_K_MAX_BLOCKS
        assert draw_shapes.MIN_FLOPS <= 2.0 * m * n * k <= draw_shapes.MAX_FLOPS
    assert {s["transposes"] for s in shapes} == {"nn", "nt", "tn", "tt"}
    # The bounds bite: the plain draw has shapes the regime refuses.
    assert any(not draw_shapes.is_long_k(s["m"], s["n"], s["k"]) for s in draw_shapes.draw(11, 200))
    with pytest.raises(ValueError, match="regime .wide.: expected one of any, long-k, narrow, short-side, short-k, mid-size"):
        draw_shapes.draw(11, 3, "wide")


def test_the_long_k_file_is_its_draw_and_shares_no_shape_with_a_held_out_one():
    drawn = json.loads((ROOT / "configs/shapes/long_k_draw.json").read_text())
    assert drawn["shapes"] == draw_shapes.draw(20261203, 40, "long-k")
    assert_shares_no_shape({key(s) for s in drawn["shapes"]},
                           HELD_OUT + [ROOT / "configs/shapes" / name for name in ("coverage.json", "coverage_second_draw.json")])


def test_the_two_coverage_draws_share_no_shape():
    assert_shares_no_shape(shapes_of(ROOT / "configs/shapes/coverage.json"), [ROOT / "configs/shapes/coverage_second_draw.json"])


def test_a_count_below_one_is_refused(tmp_path, capsys):
    assert draw_shapes.main(["--seed", "1", "--count", "0", "--description", "x",
                             "--output", str(tmp_path / "s.json")]) == 1
    assert "--count 0: expected a positive number" in capsys.readouterr().err
    assert draw_shapes.main(["--seed", "1", "--count", "3", "--description", "three",
                             "--output", str(tmp_path / "s.json")]) == 0
    written = json.loads((tmp_path / "s.json").read_text())
    assert written == {"description": "three", "shapes": draw_shapes.draw(1, 3)}


@pytest.mark.parametrize("regime, seed, short_side, wide_side, k_range",
                         [("narrow", 12, (60, 110), (256, 8192), (128, 16384)),
                          ("short-side", 13, (96, 320), (1024, 8192), (1536, 16384)),
                          ("short-k", 17, (64, 256), (1024, 8192), (64, 512))])
def test_a_regime_of_one_short_side_draws_within_its_bounds(regime, seed, short_side, wide_side, k_range):
    shapes = draw_shapes.draw(seed, 200, regime)
    assert shapes == draw_shapes.draw(seed, 200, regime) and len({key(s) for s in shapes}) == 200
    for s in shapes:
        short, wide = sorted((s["m"], s["n"]))
        assert s["batch"] == 1 and short_side[0] <= short <= short_side[1] and wide_side[0] <= wide <= wide_side[1]
        assert k_range[0] <= s["k"] <= k_range[1]
        assert draw_shapes.MIN_FLOPS <= 2.0 * s["m"] * s["n"] * s["k"] <= draw_shapes.MAX_FLOPS
    # Both sides take the short one, and every transpose comes up.
    assert any(s["m"] < s["n"] for s in shapes) and any(s["m"] > s["n"] for s in shapes)
    assert {s["transposes"] for s in shapes} == {"nn", "nt", "tn", "tt"}


def test_the_mid_size_regime_draws_both_sides_and_k_within_its_bounds():
    shapes = draw_shapes.draw(23, 200, "mid-size")
    assert shapes == draw_shapes.draw(23, 200, "mid-size") and len({key(s) for s in shapes}) == 200
    for s in shapes:
        assert s["batch"] == 1 and 256 <= s["m"] <= 2048 and 256 <= s["n"] <= 2048 and 128 <= s["k"] <= 1024
        assert draw_shapes.MIN_FLOPS <= 2.0 * s["m"] * s["n"] * s["k"] <= draw_shapes.MAX_FLOPS
    # The bounds are reached from both ends, and every transpose comes up.
    assert min(s["m"] for s in shapes) < 300 and max(s["n"] for s in shapes) > 1700
    assert min(s["k"] for s in shapes) < 150 and max(s["k"] for s in shapes) > 850
    assert {s["transposes"] for s in shapes} == {"nn", "nt", "tn", "tt"}


def test_the_ninety_six_probe_is_its_narrow_draw():
    probe = json.loads((ROOT / "benchmark/gemm/split_probe/ninety_six_shapes.json").read_text())
    assert probe["shapes"] == draw_shapes.draw(20261205, 12, "narrow")


def test_a_draw_among_some_transposes_draws_those_alone_and_all_four_draw_as_before():
    for regime in draw_shapes.REGIMES:
        shapes = draw_shapes.draw(19, 120, regime, ("tt", "nt"))
        assert {s["transposes"] for s in shapes} == {"tt", "nt"}, regime
        # Naming all four draws what the files drawn before --transposes hold.
        assert draw_shapes.draw(19, 120, regime, draw_shapes.TRANSPOSES) == draw_shapes.draw(19, 120, regime)
    assert {s["transposes"] for s in draw_shapes.draw(19, 40, "any", ("tn",))} == {"tn"}
    for bad in ((), ("nx",), ("tt", "tt")):
        with pytest.raises(ValueError, match="transposes .*: expected distinct ones of nn, nt, tn, tt"):
            draw_shapes.draw(19, 3, "any", bad)


def test_bad_transposes_on_the_command_line_are_refused(tmp_path, capsys):
    assert draw_shapes.main(["--seed", "1", "--count", "3", "--transposes", "tt,xy", "--description", "x",
                             "--output", str(tmp_path / "s.json")]) == 1
    assert "--transposes 'tt,xy': expected distinct ones of nn, nt, tn, tt" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_the_thin_transposes_file_is_its_draws_and_shares_no_shape_with_a_held_out_one():
    drawn = json.loads((ROOT / "configs/shapes/thin_transposes_draw.json").read_text())
    expected = [s for seed, count, regime in ((2026120161, 6, "long-k"), (2026120162, 5, "short-side"), (2026120163, 5, "any"))
                for s in draw_shapes.draw(seed, count, regime, ("tt", "nt"))]
    assert drawn["shapes"] == expected
    assert_shares_no_shape({key(s) for s in drawn["shapes"]}, HELD_OUT)
