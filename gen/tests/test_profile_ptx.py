"""benchmark/mma_probe/profile_ptx.py: reading tessera's kernel cache and turning NVIDIA OpenCL's
PTX into a CUDA launch (the GPU part runs only on the GPU machine)."""
import hashlib
import re
import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmark" / "mma_probe"))
import profile_ptx  # noqa: E402

MMA_OPTIONS = ("-DREAL=float -DTRANS_A=0 -DTRANS_B=1 -DA_ALIGNED=1 -DB_ALIGNED=1 -DIS_MMA=1 -DWG_ROWS=2 "
               "-DWG_COLS=4 -DSTAGES=3 -DPAIRED_ROWS=1 -DK_TILE=16 -DBLOCK_ROWS=128 -DBLOCK_COLS=256")
PTX = """.version 8.0
.target sm_90
.visible .entry tessera_gemm(
\t.param .u32 tessera_gemm_param_0,
\t.param .u64 .ptr .global .align 4 tessera_gemm_param_4
)
{
\tmov.b32 \t%r273, %envreg0;
\tmov.b32 \t%r276, %envreg1;
\tmov.b32 \t%r293, %envreg2;
\tmov.b32 \t%r278, %envreg6;
\tmov.b32 \t%r280, %envreg7;
}
"""


def entry(options, binary):
    """A cache entry as src/runtime/program_cache.cpp writes it (the signature is not read)."""
    key = f"platform=NVIDIA CUDA\ndevice=NVIDIA H200\noptions={options}\nsource=...\n".encode()
    body = profile_ptx.FILE_MAGIC + struct.pack("<Q", len(key)) + key + struct.pack("<Q", len(binary)) + binary
    return body + hashlib.sha256(body).digest()


def test_the_magic_is_the_cache_s():
    source = (ROOT / "src" / "runtime" / "program_cache.cpp").read_text()
    magic = re.search(r'file_magic = "([^"]*)\\n"', source).group(1)
    assert profile_ptx.FILE_MAGIC == (magic + "\n").encode()


def test_extract_writes_the_mma_kernels_alone(tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "out"
    cache.mkdir()
    (cache / "a.clbin").write_bytes(entry(MMA_OPTIONS, PTX.encode() + b"\0"))
    (cache / "b.clbin").write_bytes(entry("-DREAL=float -DIS_MMA=0", b".entry tessera_gemm("))
    (cache / "c.clbin").write_bytes(entry(MMA_OPTIONS, PTX.encode())[:60])  # cut short
    (cache / "d.clbin").write_bytes(b"poclbin and nothing else")
    assert profile_ptx.extract(cache, out) == 0
    assert sorted(p.name for p in out.iterdir()) == ["nt_tf32_wg2x4_k16_s3_p1.json", "nt_tf32_wg2x4_k16_s3_p1.ptx"]
    assert (out / "nt_tf32_wg2x4_k16_s3_p1.ptx").read_text() == PTX  # the C string's NUL dropped


LOCAL_OPTIONS = ("-DREAL=float -DTRANS_A=1 -DTRANS_B=0 -DA_ALIGNED=1 -DB_ALIGNED=1 -DIS_MMA=0 -DIS_LOCAL=1 "
                 "-DITEM_ROWS=8 -DITEM_COLS=8 -DWG_ROWS=16 -DWG_COLS=16 -DSG_ROWS=1 -DSG_COLS=1 -DK_TILE=16 "
                 "-DVECTOR_WIDTH=4 -DDOUBLE_BUFFER=0 -DPAD_A=4 -DPAD_B=4 -DSPLIT_K=1")


def test_extract_of_the_local_family_names_its_configuration(tmp_path):
    cache, out = tmp_path / "cache", tmp_path / "out"
    cache.mkdir()
    (cache / "a.clbin").write_bytes(entry(LOCAL_OPTIONS, PTX.encode()))
    (cache / "b.clbin").write_bytes(entry(MMA_OPTIONS, PTX.encode()))
    # split-K: a workspace argument and a second kernel, which `run` does not launch
    (cache / "c.clbin").write_bytes(entry(LOCAL_OPTIONS.replace("SPLIT_K=1", "SPLIT_K=4"), PTX.encode()))
    assert profile_ptx.extract(cache, out, family="local") == 0
    assert sorted(p.name for p in out.iterdir()) == ["tn_float_i8x8_wg16x16_sg1x1_k16_v4_db0_pad4x4.json",
                                                     "tn_float_i8x8_wg16x16_sg1x1_k16_v4_db0_pad4x4.ptx"]


def test_extract_of_a_cache_without_mma_kernels_fails(tmp_path):
    assert profile_ptx.extract(tmp_path, tmp_path / "out") == 1


def test_a_cut_entry_is_refused():
    with pytest.raises(ValueError, match="cut short"):
        profile_ptx.read_entry(entry(MMA_OPTIONS, PTX.encode())[: len(profile_ptx.FILE_MAGIC) + 200])
    with pytest.raises(ValueError, match="not a tessera"):
        profile_ptx.read_entry(b"poclbin")


def test_opencl_launch_registers_become_cuda_ones():
    cuda = profile_ptx.as_cuda_launch(PTX)
    assert "%envreg" not in cuda
    assert "mov.b32 %r273, 0;" in cuda and "mov.b32 %r293, 0;" in cuda  # no group offset
    assert "mov.u32 %r278, %nctaid.x;" in cuda and "mov.u32 %r280, %nctaid.y;" in cuda
    # the global offset (get_global_id's): tessera launches without one
    assert profile_ptx.as_cuda_launch("\tmov.b32 \t%r9, %envreg5;\n") == "\tmov.b32 %r9, 0;\n"
    with pytest.raises(SystemExit, match="envreg9"):
        profile_ptx.as_cuda_launch("\tmov.b32 \t%r9, %envreg9;\n")


def test_the_entry_parameters_are_read_in_order():
    assert profile_ptx.entry_parameters(PTX) == ["u32", "u64"]


def test_sass_pages_are_summarised_per_block(tmp_path, capsys):
    page = tmp_path / "page.txt"
    page.write_text(
        "Address  Source  ...\n"
        "0x7f00  HMMA.1688.F32.TF32 R4, R132, R2, R4          30  8  30  8388608 268435456 268435456 32\n"
        "0x7f10  @!P0  LDGSTS.E.BYPASS.LTC128B.128 desc[UR24][R194.64], [R175]   5  0  5  8388608 1 1 32\n"
        "0x7f20  STG.E desc[UR4][R2.64], R5                    1  0  1  16384 524288 524288 32\n")
    assert profile_ptx.summarize_sass(page) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "executed 8388608 times: 2 instructions, 97.2% of the samples"
    assert out[1] == "  HMMA.1688.F32.TF32 1, LDGSTS.E.BYPASS.LTC128B.128 1"
    assert out[2].startswith("executed 16384 times: 1 instructions")
    page.write_text("no SASS here\n")
    with pytest.raises(SystemExit, match="no SASS rows"):
        profile_ptx.summarize_sass(page)
