#!/usr/bin/env python3
"""Checks of a tune_* binary that need more than CTest's output regex: the exit status with the
message, what the results JSON says, a signal sent mid-run.

  check_tuner.py expect --status N|nonzero [--stderr RE] [--stdout RE] [--absent RE] [--keep FILE] -- TUNER ARGS
  check_tuner.py finalists TUNER ARGS            (ARGS must include --json FILE)
  check_tuner.py plausible TUNER ARGS            (ARGS must include --json FILE)
  check_tuner.py stop TUNER ARGS                 (ARGS must include --json FILE)
  check_tuner.py resume TUNER ARGS               (ARGS must include --json FILE)
  check_tuner.py full_disk TUNER ARGS            (ARGS must include --json FILE)
  check_tuner.py shapes TUNER SUITE JSON         (tune_* --shapes SUITE --budget 2 --json JSON)
  check_tuner.py precision TUNER ARGS            (ARGS must include --json FILE; --precision P or fp32)
  check_tuner.py mpi_same --mpirun M TUNER ARGS  (ARGS: a full sweep (no --budget) with --json FILE)
  check_tuner.py mpi_resume --mpirun M TUNER ARGS
  check_tuner.py mpi_stop --mpirun M TUNER ARGS
  check_tuner.py mpi_fault --mpirun M TUNER ARGS
Exits 0 when the check holds, 1 with the reason otherwise.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class CheckFailed(Exception):
    pass


def run(command: list[str], timeout: float = 540) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


PRIVATE = Path(tempfile.mkdtemp(prefix="check_tuner."))


def json_path(command: list[str]) -> Path:
    """The results file of command, moved into a folder of this process's own: two runs of the
    test suite at once must not read each other's results."""
    if "--json" not in command:
        raise CheckFailed("the tuner's arguments need --json FILE")
    at = command.index("--json") + 1
    command[at] = str(PRIVATE / Path(command[at]).name)
    return Path(command[at])


def expect(args: argparse.Namespace) -> None:
    """The exit status and messages of one command, and a file it must leave as it was."""
    kept = Path(args.keep).read_bytes() if args.keep else None
    done = run(args.command)
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    expected = done.returncode != 0 if args.status == "nonzero" else done.returncode == int(args.status)
    if not expected:
        raise CheckFailed(f"expected exit {args.status}; {shown}")
    for pattern, text, name in ((args.stderr, done.stderr, "stderr"), (args.stdout, done.stdout, "stdout")):
        if pattern and not re.search(pattern, text, re.S):
            raise CheckFailed(f"{name} does not match {pattern!r}; {shown}")
    if args.absent and re.search(args.absent, done.stdout + done.stderr, re.S):
        raise CheckFailed(f"the output matches {args.absent!r}, which must not appear; {shown}")
    if kept is not None and Path(args.keep).read_bytes() != kept:
        raise CheckFailed(f"{args.keep} was changed")


def load_run(command: list[str]) -> dict:
    path = json_path(command)
    done = run(command)
    if done.returncode != 0:
        raise CheckFailed(f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(path.read_text())


def finalists(args: argparse.Namespace) -> None:
    """After the search the best configurations and the default are measured again, interleaved
    in one process; the decision follows the spread rule from the figures the JSON records."""
    document = load_run(args.command)
    for run_ in document["runs"]:
        where = f"run {run_['transposes']}"
        block, decision = run_["finalists"], run_["decision"]
        if block is None or decision is None:
            raise CheckFailed(f"{where}: no finalists or decision")
        entries = block["entries"]
        kinds = [e["kind"] for e in entries]
        if kinds.count("default") != 1 or not 1 <= kinds.count("config") <= document["timing"]["finalists"]:
            raise CheckFailed(f"{where}: finalists {kinds}: expected up to {document['timing']['finalists']} "
                              "configurations and the default")
        for e in entries:
            samples, seconds = e["samples"], e["seconds"]
            if len(samples) != block["rounds"]:
                raise CheckFailed(f"{where}: {e['name']}: {len(samples)} samples for {block['rounds']} rounds")
            if not min(samples) == seconds["min"] <= seconds["median"] <= seconds["max"] == max(samples):
                raise CheckFailed(f"{where}: {e['name']}: median and range disagree with the samples")
            if seconds["spread"] < 0 or seconds["spread"] > seconds["max"] - seconds["min"]:
                raise CheckFailed(f"{where}: {e['name']}: spread {seconds['spread']} outside the range")
        default = next(e for e in entries if e["kind"] == "default")
        configs = [e for e in entries if e["kind"] == "config"]

        def beats(x: dict) -> bool:
            spread = max(x["seconds"]["spread"], default["seconds"]["spread"])
            return default["seconds"]["median"] - x["seconds"]["median"] > spread

        winners = [e for e in configs if beats(e)]
        if decision["verdict"] == "best":
            best = next((e for e in configs if e["configuration"] == decision["best_configuration"]), None)
            if best is None or not beats(best):
                raise CheckFailed(f"{where}: BEST {decision['best_configuration']} does not beat the default by more "
                                  "than the spread")
        elif decision["verdict"] == "default_kept":
            if winners:
                raise CheckFailed(f"{where}: the default was kept though {winners[0]['name']} beat it")
        else:
            raise CheckFailed(f"{where}: verdict {decision['verdict']}")
        order = [e["name"] for e in entries]
        if order[-1] != default["name"]:
            raise CheckFailed(f"{where}: the default is not the last finalist: {order}")


def plausible(args: argparse.Namespace) -> None:
    """Every ranked row on the device stays below the device's peak (a timing that missed
    launches, as split batches once did, would claim far more)."""
    document = load_run(args.command)
    peak = document["device"]["peak_gflops"]
    if not peak:
        raise CheckFailed("the device's peak is unknown")
    for run_ in document["runs"]:
        for r in run_["results"]:
            if r["status"] == "implausible":
                raise CheckFailed(f"{r['name']}: {r['reason']}")
            if r["status"] == "ok" and r["where"] == "opencl_device" and r["gflops"]["median"] > peak:
                raise CheckFailed(f"{r['name']}: {r['gflops']['median']} GFLOP/s above the peak {peak}")
        if not any(r["status"] == "ok" and r["kind"] == "config" for r in run_["results"]):
            raise CheckFailed(f"run {run_['transposes']}: no configuration was ranked")


def tolerance(precision: str, k: int) -> float:
    """baselines::gemm_tolerance(precision, k): FP32's k-fold bound, plus TF32's operand cut."""
    fp32 = 4.0 * max(k, 1) * 2.0 ** -23
    return fp32 + (8.0 * math.sqrt(max(k, 1)) * 2.0 ** -9 if precision == "tf32" else 0.0)


def precision(args: argparse.Namespace) -> None:
    """--precision: the JSON names it; every row that ran carries its error against the FP64
    product, within the precision's tolerance; the configurations are those that compute in it,
    and all of them ran: fp32 no mma; tf32 mma alone on tensor cores (NVIDIA sm_80 and up), no
    mma elsewhere; fp16 and bf16 mma alone, and on a device without tensor cores a refusal before
    any work."""
    command = list(args.command)
    wanted = command[command.index("--precision") + 1] if "--precision" in command else "fp32"
    path = json_path(command)
    done = run(command)
    if done.returncode != 0:
        refused = re.search(r"A and B of 16-bit values are multiplied only on tensor cores .* has none", done.stderr)
        if wanted in ("fp16", "bf16") and refused and "measuring" not in done.stderr and not path.exists():
            return
        raise CheckFailed(f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    document = json.loads(path.read_text())
    if document.get("precision") != wanted:
        raise CheckFailed(f"the JSON's precision is {document.get('precision')!r}, not {wanted!r}")
    architecture = re.fullmatch(r"sm_(\d+)", document["device"].get("architecture") or "")
    tensor_cores = architecture is not None and int(architecture.group(1)) >= 80
    for run_ in document["runs"]:
        where = f"run {run_['transposes']} {run_['m']}x{run_['n']}x{run_['k']}"
        configs = [r for r in run_["results"] if r["kind"] == "config"]
        if len(configs) != run_["configs_total"] or not configs:
            raise CheckFailed(f"{where}: {len(configs)} configuration rows of {run_['configs_total']}")
        mma = [r["name"].startswith("mma") for r in configs]
        expected = {"fp32": not any(mma), "tf32": all(mma) if tensor_cores else not any(mma)}.get(wanted, all(mma))
        if not expected:
            raise CheckFailed(f"{where}: {sum(mma)} of {len(mma)} configurations are of the mma family ({wanted} on "
                              f"{document['device']['name']}, {'with' if tensor_cores else 'without'} tensor cores)")
        for r in run_["results"]:
            if r["status"] != "ok":
                raise CheckFailed(f"{where}: {r['name']}: {r['status']}: {r['reason']}")
            error, bound = r.get("max_rel_err"), tolerance(wanted, run_["k"])
            if not isinstance(error, float) or not 0.0 <= error <= bound:
                raise CheckFailed(f"{where}: {r['name']}: max_rel_err {error!r}, not within [0, {bound:.3g}]")


def signal_at_second_problem(command: list[str], sig: int) -> tuple[subprocess.Popen, list[str]]:
    """Starts command and sends it sig once its second problem has begun; the process and the
    stderr lines read so far."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = []
    deadline = time.monotonic() + 540
    for line in process.stderr:
        seen.append(line)
        if line.startswith("-- [2/"):
            process.send_signal(sig)
            return process, seen
        if time.monotonic() > deadline:
            break
    process.kill()
    process.wait()
    raise CheckFailed("the tuner ended before the second problem:\n" + "".join(seen[-20:]))


def resume_to_the_end(command: list[str], path: Path, at_least: int) -> tuple[list[dict], list[str], list[str]]:
    """The same command with --resume path: exit 0, every problem complete, each once, at least
    at_least of them. Its runs, and its lines of problems taken from the file and measured."""
    resumed = run(command + ["--resume", str(path)])
    if resumed.returncode != 0:
        raise CheckFailed(f"the resumed run: exit {resumed.returncode}\n{resumed.stderr[-3000:]}")
    document = json.loads(path.read_text())
    runs = document["runs"]
    if document["partial"] or any(r["partial"] or r["decision"] is None for r in runs):
        raise CheckFailed("the resumed run is not complete")
    keys = [(r["transposes"], r["m"], r["n"], r["k"], r["batch"]) for r in runs]
    if len(keys) != len(set(keys)) or len(keys) < at_least:
        raise CheckFailed(f"problems {keys}: expected each once, at least {at_least}")
    lines = resumed.stderr.splitlines()
    done = [line for line in lines if "not measured again" in line and line.startswith("-- [")]
    measured = [line for line in lines if re.match(r"-- \[\d+/\d+\] .*configurations", line)]
    return runs, done, measured


def stop(args: argparse.Namespace) -> None:
    """SIGTERM once the second problem (transpose pair, or shape of a suite) has begun: the first
    problem's results are saved complete, the second's marked partial, and the exit status is
    128 + SIGTERM."""
    path = json_path(args.command)
    process, seen = signal_at_second_problem(args.command, signal.SIGTERM)
    stderr = "".join(seen) + process.stderr.read()
    stdout = process.stdout.read()
    status = process.wait(timeout=300)
    if status != 128 + signal.SIGTERM:
        raise CheckFailed(f"exit {status}, expected {128 + signal.SIGTERM}\n{stdout[-2000:]}\n{stderr[-2000:]}")
    if "SIGTERM: stopped; the results measured so far are saved, marked partial" not in stderr:
        raise CheckFailed(f"no message about the stop:\n{stderr[-2000:]}")
    document = json.loads(path.read_text())
    if not document["partial"] or document["stopped_by"] != "SIGTERM":
        raise CheckFailed(f"partial {document['partial']}, stopped_by {document['stopped_by']}")
    runs = document["runs"]
    if len(runs) != 2:
        raise CheckFailed(f"runs {[r['transposes'] for r in runs]}, expected the first complete and the second partial")
    first, second = runs
    if first["partial"] or first["decision"] is None or len(first["results"]) < 3 + first["configs_total"]:
        raise CheckFailed("the first pair is not complete")
    if not second["partial"] or second["decision"] is not None:
        raise CheckFailed("the second pair is not marked partial")
    if "(partial: stopped by SIGTERM)" not in stdout:
        raise CheckFailed(f"the table does not say partial:\n{stdout[-2000:]}")


def resume(args: argparse.Namespace) -> None:
    """SIGKILL once the second problem has begun (no handler runs: the file holds what was written
    after each problem, the first complete), then the same command with --resume of that file:
    every problem ends complete, the first exactly as the killed run wrote it (not measured again),
    the others measured once."""
    path = json_path(args.command)
    process, _ = signal_at_second_problem(args.command, signal.SIGKILL)
    process.wait(timeout=60)
    killed = json.loads(path.read_text())
    if [r["partial"] for r in killed["runs"]] != [False]:
        raise CheckFailed(f"after the kill: runs {[(r['transposes'], r['partial']) for r in killed['runs']]}, "
                          "expected the first problem alone, complete")
    runs, done, measured = resume_to_the_end(args.command, path, 2)
    if runs[0] != killed["runs"][0]:
        raise CheckFailed("the first problem was measured again (its results differ from the killed run's)")
    if len(done) != 1 or len(measured) != len(runs) - 1:
        raise CheckFailed(f"resumed {done}, measured {measured}: expected one taken from the file, the rest measured")
    # Results measured with other options are refused before any work, naming what differs.
    other = list(args.command)
    reps = other.index("--reps") + 1
    other[reps] = str(int(other[reps]) + 1)
    refused = run(other + ["--resume", str(path)])
    expected = rf"--resume .*: \$\.timing\.repetitions: measured with {args.command[reps]}, this run has {other[reps]}"
    if refused.returncode != 1 or not re.search(expected, refused.stderr) or "-- [1/" in refused.stderr:
        raise CheckFailed(f"other --reps: exit {refused.returncode}, expected 1 and {expected!r}\n{refused.stderr[-2000:]}")


def full_disk(args: argparse.Namespace) -> None:
    """A write that fails at the end of a run (a full disk, here a file-size limit below the
    results' size): the message names the path, the exit status is 3, and the results file of an
    earlier run is left whole, with no temporary file beside it."""
    path = json_path(args.command)
    warm = run(args.command)  # builds every kernel into the caches: the second run writes only results
    if warm.returncode != 0:
        raise CheckFailed(f"the first run exited {warm.returncode}\n{warm.stderr[-2000:]}")
    earlier = path.read_bytes()
    limit = len(earlier) // 2

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(args.command, capture_output=True, text=True, timeout=540, preexec_fn=small_files)
    if done.returncode != 3:
        raise CheckFailed(f"exit {done.returncode}, expected 3\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    if f"results not saved: {path}: cannot write: File too large" not in done.stderr:
        raise CheckFailed(f"no message naming {path}:\n{done.stderr[-2000:]}")
    if path.read_bytes() != earlier:
        raise CheckFailed(f"{path} was changed")
    if [p.name for p in path.parent.iterdir()] != [path.name]:
        raise CheckFailed(f"left behind: {sorted(p.name for p in path.parent.iterdir())}")


def shapes(args: argparse.Namespace) -> None:
    """tune_* --shapes: one run per shape and transpose pair, in the suite's order, with its sizes
    and weight; each complete and decided; the suite's progress (shape, ETA) on stderr."""
    tuner, suite, out = args.command
    command = [tuner, "--shapes", suite, "--budget", "2", "--reps", "1", "--rounds", "3", "--json", out]
    path = json_path(command)
    done = run(command)
    if done.returncode != 0:
        raise CheckFailed(f"exit {done.returncode}: {done.stderr[-3000:]}")
    document = json.loads(path.read_text())
    expected = []
    for shape in json.loads(Path(suite).read_text())["shapes"]:
        transposes = shape["transposes"] if isinstance(shape["transposes"], list) else [shape["transposes"]]
        expected += [(t, shape["m"], shape["n"], shape["k"], shape.get("batch", 1), shape.get("weight", 1)) for t in transposes]
    got = [(r["transposes"], r["m"], r["n"], r["k"], r["batch"], r["weight"]) for r in document["runs"]]
    if got != expected:
        raise CheckFailed(f"runs {got}, expected {expected}")
    if document["shapes"] != [suite] or document["partial"]:
        raise CheckFailed(f"$.shapes {document['shapes']!r}, $.partial {document['partial']}")
    for r in document["runs"]:
        if r["partial"] or r["decision"] is None or r["decision"]["verdict"] == "none":
            raise CheckFailed(f"run {r['transposes']} {r['m']}x{r['n']}x{r['k']}: not complete and decided")
        if sum(x["kind"] == "config" for x in r["results"]) != 2:
            raise CheckFailed(f"run {r['transposes']}: --budget 2 evaluated another number of configurations")
    if not re.search(r"-- \[3/3\] 40x21x101 nt, batch 2: .*ETA", done.stderr):
        raise CheckFailed(f"no progress line for the third problem with the suite's ETA: {done.stderr[-3000:]}")


sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "gen"))
from compare_sweeps import compare  # noqa: E402
from tune_results import load_results  # noqa: E402


def two_ranks(args: argparse.Namespace, command: list[str]) -> list[str]:
    """command as two ranks of mpirun on this host (however many cores: --oversubscribe; each
    rank free to use them all for its kernel builds: --bind-to none)."""
    return [args.mpirun, "--oversubscribe", "--bind-to", "none", "-n", "2"] + command


def with_json(command: list[str], path: Path) -> list[str]:
    out = list(command)
    out[out.index("--json") + 1] = str(path)
    return out


def complete_runs(path: Path) -> list[dict]:
    document = json.loads(path.read_text())
    return [r for r in document["runs"] if not r["partial"] and r["decision"] is not None]


def mpi_same(args: argparse.Namespace) -> None:
    """One rank and two give the same results: the same problems complete, the same
    configurations verified in each, both ranks measuring, and the same winners wherever both runs
    were sure (each winner 50% ahead of its next finalist: microsecond kernels on cores that
    another test run may share)."""
    if "--budget" in args.command:
        raise CheckFailed("mpi_same compares full sweeps (a budgeted search's path follows the timings)")
    one = json_path(args.command)
    alone = run(args.command)
    if alone.returncode != 0:
        raise CheckFailed(f"one rank: exit {alone.returncode}\n{alone.stderr[-3000:]}")
    two = one.with_name("two_ranks.json")
    ranks = run(two_ranks(args, with_json(args.command, two)))
    if ranks.returncode != 0:
        raise CheckFailed(f"two ranks: exit {ranks.returncode}\n{ranks.stderr[-3000:]}")
    summary, lines = compare(load_results(one), load_results(two), 0.5)
    document = json.loads(two.read_text())
    measured_by = {r["measured_by"]["rank"] for r in document["runs"]}
    problems = summary["problems"]
    if summary["missing"] or summary["incomplete"] or summary["same_verified"] != problems:
        raise CheckFailed(f"{summary}\n" + "\n".join(lines))
    if summary["winners_differ_clearly"]:
        raise CheckFailed("winners differ:\n" + "\n".join(lines))
    if measured_by != {0, 1} or [r["rank"] for r in document["ranks"]] != [0, 1]:
        raise CheckFailed(f"problems measured by ranks {sorted(measured_by)}, ranks {document['ranks']}")
    if not re.search(r"^rank 1 \(.*\): \d+ problems, measuring", ranks.stderr, re.M):
        raise CheckFailed(f"no summary line for rank 1:\n{ranks.stderr[-2000:]}")


def processes_of(path: Path) -> list[tuple[int, str]]:
    """(pid, program) of every process whose command line names path."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue  # ended meanwhile
        if any(str(path).encode() in a for a in arguments):
            found.append((int(entry.name), Path(arguments[0].decode(errors="replace")).name))
    return found


def kill_every_process_of(path: Path) -> None:
    """SIGKILL to every process whose command line names path (mpirun and its ranks, which
    OpenMPI starts in sessions of their own), until none is left: a machine going down."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [pid for pid, _ in processes_of(path)]
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    raise CheckFailed(f"processes of {path} still alive after SIGKILL")


def mpi_resume(args: argparse.Namespace) -> None:
    """Two ranks killed (every process, SIGKILL) once a problem is saved, then the same command
    with --resume: every problem ends complete, those complete in the killed run's file exactly as
    written there, each other measured once."""
    path = json_path(args.command)
    command = two_ranks(args, args.command)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    seen = []
    deadline = time.monotonic() + 300
    for line in process.stderr:
        seen.append(line)
        if re.match(r"-- .* on rank \d+ \(.*\): ", line) and "configurations" not in line:
            break
        if time.monotonic() > deadline:
            break
    kill_every_process_of(path)
    process.wait(timeout=60)
    killed = complete_runs(path)
    total = len(json.loads(path.read_text())["runs"])
    if not killed:
        raise CheckFailed("after the kill: no complete problem in the file\n" + "".join(seen[-20:]))
    runs, done, measured = resume_to_the_end(command, path, total)
    if len(killed) >= len(runs):
        raise CheckFailed("every problem was complete before the kill: nothing was resumed")
    for run_before in killed:
        if run_before not in runs:
            raise CheckFailed(f"{run_before['transposes']} {run_before['m']}x{run_before['n']}x{run_before['k']} was "
                              "measured again (its results differ from the killed run's)")
    if len(done) != len(killed) or len(measured) != len(runs) - len(killed):
        raise CheckFailed(f"resumed {len(done)}, measured {len(measured)}: expected {len(killed)} taken from the file "
                          f"and {len(runs) - len(killed)} measured")


def mpi_stop(args: argparse.Namespace) -> None:
    """SIGTERM to every rank (as Slurm's scancel sends it) once the second problem is out: each
    rank stops at its next measurement boundary and reports; rank 0 saves every finished problem
    complete, those in flight partial, the file says SIGTERM, and it exits with 128 + SIGTERM."""
    path = json_path(args.command)
    process = subprocess.Popen(two_ranks(args, args.command), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    seen = []
    deadline = time.monotonic() + 300
    for line in process.stderr:
        seen.append(line)
        if line.startswith("-- [3/") or time.monotonic() > deadline:
            break
    for pid, program in processes_of(path):
        if program not in ("mpirun", "mpiexec", "orterun", "prterun"):
            os.kill(pid, signal.SIGTERM)
    stderr = "".join(seen) + process.stderr.read()
    status = process.wait(timeout=120)
    kill_every_process_of(path)
    document = json.loads(path.read_text())
    if status == 0 or "SIGTERM: stopped; the results measured so far are saved, marked partial" not in stderr:
        raise CheckFailed(f"mpirun exit {status}, expected a failure and rank 0's stop message\n{stderr[-3000:]}")
    if not document["partial"] or document["stopped_by"] != "SIGTERM":
        raise CheckFailed(f"partial {document['partial']}, stopped_by {document['stopped_by']}")
    if any(not r["partial"] and r["decision"] is None for r in document["runs"]):
        raise CheckFailed("a run marked complete has no decision")


def mpi_fault(args: argparse.Namespace) -> None:
    """Rank 1's device fails (--fault-rank 1): its problem is recorded failed with the reason,
    rank 0 measures the others, the exit status is 1 with a resume hint; the same command with
    --resume (and no fault) measures that problem alone."""
    path = json_path(args.command)
    command = two_ranks(args, args.command)
    failed = run(command + ["--fault-rank", "1"])
    if failed.returncode != 1 or "--fault-rank 1: this rank's device fails" not in failed.stderr or \
            f"--resume {path}" not in failed.stderr:
        raise CheckFailed(f"exit {failed.returncode}, expected 1, the failure and a resume hint\n{failed.stderr[-3000:]}")
    runs = json.loads(path.read_text())["runs"]
    broken = [r for r in runs if "failure" in r]
    if len(broken) != 1 or not broken[0]["partial"] or broken[0]["measured_by"]["rank"] != 1:
        raise CheckFailed(f"failed problems {[(r['transposes'], r.get('failure')) for r in broken]}: expected one, "
                          "partial, measured by rank 1")
    if any(r["measured_by"]["rank"] != 0 for r in runs if r is not broken[0]) or len(complete_runs(path)) != len(runs) - 1:
        raise CheckFailed("the other problems are not all complete on rank 0")
    resumed = run(command + ["--resume", str(path)])
    measured = [line for line in resumed.stderr.splitlines() if re.match(r"-- \[\d+/\d+\] .*configurations", line)]
    if resumed.returncode != 0 or len(measured) != 1 or len(complete_runs(path)) != len(runs):
        raise CheckFailed(f"resumed: exit {resumed.returncode}, measured {measured}\n{resumed.stderr[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="check", required=True)
    e = sub.add_parser("expect")
    e.add_argument("--status", required=True, help="the exit status, or nonzero")
    e.add_argument("--stderr")
    e.add_argument("--stdout")
    e.add_argument("--absent")
    e.add_argument("--keep")
    e.add_argument("command", nargs=argparse.REMAINDER)
    for name in ("finalists", "plausible", "stop", "resume", "full_disk", "shapes", "precision"):
        sub.add_parser(name).add_argument("command", nargs=argparse.REMAINDER)
    for name in ("mpi_same", "mpi_resume", "mpi_stop", "mpi_fault"):
        m = sub.add_parser(name)
        m.add_argument("--mpirun", required=True)
        m.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    try:
        {"expect": expect, "finalists": finalists, "plausible": plausible, "stop": stop, "resume": resume,
         "full_disk": full_disk, "shapes": shapes, "precision": precision, "mpi_same": mpi_same,
         "mpi_resume": mpi_resume, "mpi_stop": mpi_stop, "mpi_fault": mpi_fault}[args.check](args)
    except (CheckFailed, subprocess.TimeoutExpired, OSError, json.JSONDecodeError) as failure:
        print(f"check_tuner {args.check}: FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(PRIVATE, ignore_errors=True)
    print(f"check_tuner {args.check}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
