"""database_tuning_set.py: a defaults database's configurations as a tuning set."""
from __future__ import annotations

import json
import re
from pathlib import Path

import database_tuning_set
import generate_combinations
from gemm_params import GemmConfig

A = "local cache_line_bytes=64 item=8x8 wg=16x8 vector_width=4 double_buffer=1 split_k=0"
B = "local cache_line_bytes=32 item=4x4 wg=8x8 vector_width=4"
C = "no_local cache_line_bytes=32 item=4x4 wg=8x8 vector_width=4"
TF32 = "mma cache_line_bytes=64 item=64x64 wg=4x2 stages=3"


def database(tmp_path: Path) -> Path:
    def entry(configuration: str, **extra) -> dict:
        return {"level": "name", "match": "NVIDIA H200", "element_bytes": 4, "transposes": "nn", "problem": "large",
                "shape": {"m": 64, "n": 64, "k": 64, "batch": 1}, "configuration": configuration, "origin": "o",
                **extra}
    path = tmp_path / "db.json"
    path.write_text(json.dumps({"entries": [entry(A), entry(B), entry(A, role="measured", gflops=1.0),
                                            entry(C, element_bytes=8), entry(TF32, precision="tf32")]}))
    return path


def test_each_configuration_of_the_elements_and_precision_once_and_the_generator_keeps_them(tmp_path):
    out = tmp_path / "set.json"
    assert database_tuning_set.main([str(database(tmp_path)), "--output", str(out)]) == 0
    document = json.loads(out.read_text())
    assert len(document["configurations"]) == 2
    assert document["configurations"][0]["family"] == ["local"] and document["configurations"][0]["split_k"] == [0]
    definitions = tmp_path / "g.def"
    assert generate_combinations.main([str(out), "--def", str(definitions), "--source_dir", str(tmp_path / "src"),
                                       "--quiet"]) == 0
    texts = re.findall(r'^BENCH_PARAMS\("([^"]+)"', definitions.read_text(), re.M)
    assert sorted(texts) == sorted(GemmConfig.from_text(t).text() for t in (A, B))
    # Doubles and the tensor cores' precision have sets of their own.
    assert database_tuning_set.main([str(database(tmp_path)), "--output", str(out), "--element-bytes", "8"]) == 0
    assert [c["family"] for c in json.loads(out.read_text())["configurations"]] == [["no_local"]]


def test_a_database_without_such_entries_or_not_a_database_is_named(tmp_path, capsys):
    out = tmp_path / "set.json"
    assert database_tuning_set.main([str(database(tmp_path)), "--output", str(out), "--precision", "fp16"]) == 1
    assert "no entry for 4-byte elements in precision fp16" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert database_tuning_set.main([str(bad), "--output", str(out)]) == 1
    assert "$.entries: expected a list" in capsys.readouterr().err
    assert not out.exists()
