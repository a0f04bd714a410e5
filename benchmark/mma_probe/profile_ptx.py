#!/usr/bin/env python3
"""Profiles tessera's GEMM kernels (the mma and local families) with Nsight Compute, which does
not see OpenCL kernels.

NVIDIA's OpenCL driver compiles a kernel to PTX, and tessera's disk cache keeps that PTX (the
program binary) with the build options in its key. This script takes a kernel from the cache and
runs the same PTX through the CUDA driver (CuPy's RawModule), where `ncu` sees it:

  extract CACHE_DIR OUT_DIR [--family mma|local]
                              writes OUT_DIR/<name>.ptx and <name>.json (the build options) for
                              every cached GEMM of the family, mma by default (name: transposes,
                              input, configuration); split-K's kernels (a workspace argument and a
                              second kernel) are left out
  run PTX M N K [--reps R]    launches it on fresh random data as tessera launches it (the grid
                              and work-group from the options), checks sampled entries of C
                              against an FP64 product and prints the time per launch
  sass PAGE                   summarises `ncu --section SourceCounters --page source
                              --print-source sass` output: the instructions of each block by how
                              often they ran (the K loop's body is the block run once per K tile
                              and warp), their opcodes and where the warps' stall samples fell

GPU machine only (CuPy, ncu): scripts/gpu-run.sh's steps `mma-profile` and `gemm-profile` run
both under ncu.
"""
import argparse
import collections
import json
import pathlib
import re
import struct
import sys
import tempfile

FILE_MAGIC = b"TESSERA-PROGRAM-BINARY 2\n"  # src/runtime/program_cache.cpp's file_magic

# The parameters of every GEMM family, in order (GEMM_PARAMETERS in src/blas/gemm_common.cl).
GEMM_PARAMETERS = ["M", "N", "K", "alpha", "A_base", "a_offset", "lda", "a_stride", "B_base", "b_offset", "ldb",
                   "b_stride", "beta", "C_base", "c_offset", "ldc", "c_stride", "batch_count"]
POINTERS = {"A_base", "B_base", "C_base"}


def read_entry(data):
    """(key, binary) of one cache entry: magic, u64 key size, key, u64 size, binary, HMAC.

    The signature is not checked (this reads, it runs nothing of the host's); a file of another
    format or cut short raises ValueError."""
    if not data.startswith(FILE_MAGIC):
        raise ValueError("not a tessera program cache entry")
    try:
        position = len(FILE_MAGIC)
        (key_size,) = struct.unpack_from("<Q", data, position)
        position += 8
        key = data[position:position + key_size].decode("utf-8", "replace")
        position += key_size
        (binary_size,) = struct.unpack_from("<Q", data, position)
        position += 8
    except struct.error:
        raise ValueError("a cache entry cut short") from None
    if position + binary_size > len(data):
        raise ValueError("a cache entry cut short")
    return key, data[position:position + binary_size]


def build_options(key):
    line = next((l for l in key.split("\n") if l.startswith("options=")), "")
    return {m.group(1): m.group(2) for m in re.finditer(r"-D(\w+)=(\S+)", line)}


def kernel_name(options, family):
    """The file name of a cached kernel: transposes, input and the configuration's values."""
    transposes = ("t" if options["TRANS_A"] == "1" else "n") + ("t" if options["TRANS_B"] == "1" else "n")
    aligned = "" if options.get("A_ALIGNED") == "1" and options.get("B_ALIGNED") == "1" else "_unaligned"
    if family == "mma":
        precision = {"0": "tf32", "1": "fp16", "2": "bf16"}[options.get("MMA_INPUT", "0")]
        return (f"{transposes}_{precision}_wg{options['WG_ROWS']}x{options['WG_COLS']}_k{options['K_TILE']}"
                f"_s{options['STAGES']}_p{options.get('PAIRED_ROWS', '0')}{aligned}")
    return (f"{transposes}_{options['REAL']}_i{options['ITEM_ROWS']}x{options['ITEM_COLS']}"
            f"_wg{options['WG_ROWS']}x{options['WG_COLS']}_sg{options['SG_ROWS']}x{options['SG_COLS']}"
            f"_k{options['K_TILE']}_v{options['VECTOR_WIDTH']}_db{options['DOUBLE_BUFFER']}"
            f"_pad{options['PAD_A']}x{options['PAD_B']}{aligned}")


def extract(cache_dir, out_dir, family="mma"):
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for path in sorted(cache_dir.glob("*.clbin")):
        try:
            key, binary = read_entry(path.read_bytes())
        except ValueError:
            continue
        options = build_options(key)
        if (options.get(f"IS_{family.upper()}") != "1" or options.get("SPLIT_K", "1") != "1"
                or b".entry tessera_gemm" not in binary):
            continue
        name = kernel_name(options, family)
        (out_dir / f"{name}.ptx").write_bytes(binary.rstrip(b"\0"))
        (out_dir / f"{name}.json").write_text(json.dumps(options, indent=1))
        names.append(name)
    print("\n".join(names) if names else f"no {family} GEMM kernels in {cache_dir}")
    return 0 if names else 1


def entry_parameters(ptx):
    """The types of the kernel's parameters, in order (.u32, .f32, .u64, ...)."""
    match = re.search(r"\.entry\s+tessera_gemm\s*\((.*?)\)", ptx, re.S)
    if not match:
        raise SystemExit("no .entry tessera_gemm in the PTX")
    return re.findall(r"\.param\s+\.(\w+)", match.group(1))


def as_cuda_launch(ptx):
    """The PTX with NVIDIA OpenCL's launch registers replaced by CUDA's.

    The OpenCL driver passes a launch's group offset in %envreg0-2 (get_group_id(d) adds it to
    %ctaid), its global offset in %envreg3-5 (get_global_id(d) adds it) and its group counts in
    %envreg6-8 (get_num_groups); a CUDA launch has no offsets (tessera launches without a global
    offset) and its counts in %nctaid. Any other %envreg is refused rather than guessed."""
    def replace(match):
        register, index = match.group(1), int(match.group(2))
        if index in (0, 1, 2, 3, 4, 5):
            return f"mov.b32 {register}, 0;"
        if index in (6, 7, 8):
            return f"mov.u32 {register}, %nctaid.{'xyz'[index - 6]};"
        raise SystemExit(f"the PTX reads %envreg{index}, which this harness does not know how to set")
    return re.sub(r"mov\.b32\s+(%r\d+),\s*%envreg(\d+);", replace, ptx)


def run(ptx_path, m, n, k, reps):
    import cupy as cp
    import numpy as np

    options = json.loads(ptx_path.with_suffix(".json").read_text())
    ptx = ptx_path.read_text()
    types = entry_parameters(ptx)
    if len(types) != len(GEMM_PARAMETERS):
        raise SystemExit(f"the PTX entry has {len(types)} parameters ({types}), the GEMM signature "
                         f"{len(GEMM_PARAMETERS)}: a fused epilogue's kernel, or the signature changed")
    if options.get("REAL", "float") != "float":
        raise SystemExit(f"{ptx_path.name}: a {options['REAL']} kernel; this harness fills float operands")
    trans_a, trans_b = options["TRANS_A"] == "1", options["TRANS_B"] == "1"
    input_format = options.get("MMA_INPUT", "0")
    rng = np.random.default_rng(7)

    def operand(rows, cols):  # column-major rows x cols as the device holds it, and its values (exact in float)
        values = rng.uniform(-1, 1, size=(cols, rows)).astype(np.float32)
        if input_format == "0":
            return cp.asarray(values), values
        if input_format == "1":
            half = values.astype(np.float16)
            return cp.asarray(half.view(np.uint16)), half.astype(np.float32)
        bits = (values.view(np.uint32) >> 16).astype(np.uint16)  # bfloat16 by truncation
        return cp.asarray(bits), (bits.astype(np.uint32) << 16).view(np.float32)

    a, a_host = operand(k, m) if trans_a else operand(m, k)
    b, b_host = operand(n, k) if trans_b else operand(k, n)
    c = cp.full((n, m), np.nan, dtype=np.float32)
    lda, ldb = (k if trans_a else m), (n if trans_b else k)
    values = {"M": m, "N": n, "K": k, "alpha": 1.0, "A_base": a, "a_offset": 0, "lda": lda, "a_stride": 0,
              "B_base": b, "b_offset": 0, "ldb": ldb, "b_stride": 0, "beta": 0.0, "C_base": c, "c_offset": 0,
              "ldc": m, "c_stride": 0, "batch_count": 1}
    numpy_type = {"u32": np.uint32, "s32": np.int32, "b32": np.int32, "f32": np.float32, "u64": np.uint64,
                  "s64": np.int64, "b64": np.uint64}
    arguments = [values[name] if name in POINTERS else numpy_type[kind](values[name])
                 for name, kind in zip(GEMM_PARAMETERS, types)]
    wg_rows, wg_cols = int(options["WG_ROWS"]), int(options["WG_COLS"])
    block_rows, block_cols = int(options["BLOCK_ROWS"]), int(options["BLOCK_COLS"])
    grid = (-(-m // block_rows), -(-n // block_cols), 1)
    is_mma = options.get("IS_MMA") == "1"
    block = (32 * wg_rows if is_mma else wg_rows, wg_cols, 1)  # mma: wg counts warps
    with tempfile.TemporaryDirectory() as directory:
        cuda_ptx = pathlib.Path(directory) / ptx_path.name
        cuda_ptx.write_text(as_cuda_launch(ptx))
        kernel = cp.RawModule(path=str(cuda_ptx)).get_function("tessera_gemm")  # the driver's JIT, as OpenCL's
    print(f"{ptx_path.name}: grid {grid}, work-group {block}, {kernel.num_regs} registers, "
          f"{kernel.shared_size_bytes} bytes of local memory, {kernel.local_size_bytes} bytes of stack")
    kernel(grid, block, tuple(arguments))
    cp.cuda.Device().synchronize()

    # Sampled entries against the FP64 product of the values the device holds; only they come back.
    rows, cols = rng.integers(0, m, 256), rng.integers(0, n, 256)
    a_rows = (a_host[:, rows].T if not trans_a else a_host[rows, :]).astype(np.float64)  # (256, k): A(row, :)
    b_cols = (b_host[cols, :] if not trans_b else b_host[:, cols].T).astype(np.float64)  # (256, k): B(:, col)
    reference = np.einsum("ij,ij->i", a_rows, b_cols)
    scale = np.einsum("ij,ij->i", np.abs(a_rows), np.abs(b_cols))
    got = cp.asnumpy(c[cp.asarray(cols), cp.asarray(rows)]).astype(np.float64)
    error = float(np.max(np.abs(got - reference) / scale))
    # TF32, FP16 and BF16 products; float ones (the local family) round only in the sums, far below
    # what a wrong index or a lost K tile gives (of the order of 1).
    bound = {"0": 2.0 ** -9, "1": 2.0 ** -10, "2": 2.0 ** -7}[input_format] if is_mma else 2.0 ** -14
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(reps):
        kernel(grid, block, tuple(arguments))
    stop.record()
    stop.synchronize()
    seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3 / reps
    print(f"{m}x{n}x{k}: {seconds * 1e3:.3f} ms, {2.0 * m * n * k / seconds / 1e12:.1f} TFLOP/s; "
          f"max error {error:.2e} of sum |a||b| (bound {bound:.1e})")
    return 0 if error <= bound else 1


def summarize_sass(page):
    """Per execution count (a basic block's trip count), its instructions, opcodes and samples."""
    rows = []
    for line in page.read_text().splitlines():
        match = re.match(r"(0x[0-9a-f]+)\s+(.*?)\s{2,}(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s", line)
        if match:  # address, instruction, samples (all), samples (not issued), samples, executed
            words = match.group(2).split()
            opcode = words[1] if words[0].startswith("@") else words[0]
            rows.append((opcode, int(match.group(3)), int(match.group(6))))
    if not rows:
        raise SystemExit(f"{page}: no SASS rows (ncu's source page with SourceCounters expected)")
    total = sum(samples for _, samples, _ in rows) or 1
    blocks = collections.defaultdict(list)
    for row in rows:
        blocks[row[2]].append(row)
    for executed, block in sorted(blocks.items(), key=lambda item: -sum(r[1] for r in item[1]))[:3]:
        samples = sum(r[1] for r in block)
        opcodes = collections.Counter(r[0] for r in block)
        print(f"executed {executed} times: {len(block)} instructions, {100 * samples / total:.1f}% of the samples")
        print("  " + ", ".join(f"{name} {count}" for name, count in opcodes.most_common(16)))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    extract_command = commands.add_parser("extract")
    extract_command.add_argument("cache_dir", type=pathlib.Path)
    extract_command.add_argument("out_dir", type=pathlib.Path)
    extract_command.add_argument("--family", choices=["mma", "local"], default="mma")
    run_command = commands.add_parser("run")
    run_command.add_argument("ptx", type=pathlib.Path)
    run_command.add_argument("m", type=int)
    run_command.add_argument("n", type=int)
    run_command.add_argument("k", type=int)
    run_command.add_argument("--reps", type=int, default=5)
    sass_command = commands.add_parser("sass")
    sass_command.add_argument("page", type=pathlib.Path)
    arguments = parser.parse_args()
    if arguments.command == "extract":
        return extract(arguments.cache_dir, arguments.out_dir, arguments.family)
    if arguments.command == "sass":
        return summarize_sass(arguments.page)
    return run(arguments.ptx, arguments.m, arguments.n, arguments.k, arguments.reps)


if __name__ == "__main__":
    sys.exit(main())
