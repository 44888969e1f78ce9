"""harness.triton_hooks and harness.canary in real children: Triton 3.7.1 interpreter, CPU tensors,
each launch also compiled for sm_90 (H100).  The corpus kernels are in corpus/kernels/.

All children start when the first test asks for one and run side by side; each test reads its own.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from triton_child import CANARY_CHILD, KERNELS, Child, start, start_kernel

from diagnose.collectors import compiler, triton_errors
from diagnose.envinfo.gpuspec import lookup
from diagnose.evidence import Evidence
from diagnose.facts import RunFacts
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from diagnose.run import triton_evidence

H100_SMEM = lookup("H100").smem_per_block_optin  # 232448


@pytest.fixture(scope="module")
def children(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Child]:
    base = tmp_path_factory.mktemp("children")
    specs = {
        "missing_mask": ("missing_mask_tail.py", [{"n": 1000}, {"n": 4096}]),
        "vector_add": ("vector_add.py", None),
        "block_declared": ("block_multiple_only.py", None),
        "block_probe": ("block_multiple_only.py", [{"n": 1000}]),
        "wrong_indexing": ("wrong_indexing.py", None),
        "row_sum": ("row_sum_f32.py", None),
        "fp16": ("fp16_fma.py", None),
        "dot": ("dot_8x8.py", None),
        "smem": ("smem_hungry.py", None),
        "overlap": ("overlap_add_plain_store.py", [{"frames": 30, "hop": 48}]),
    }
    kids = {name: start_kernel(name, module, sizes, base=base) for name, (module, sizes) in specs.items()}
    kids["canary"] = start("canary", CANARY_CHILD, str(KERNELS), base=base)
    # no interpreter, no GPU: the launch itself fails ("0 active drivers"), after it was captured
    kids["no_driver"] = start_kernel(
        "no_driver", "vector_add.py", [{"n": 1000}], target="A10", base=base, interpret=False
    )
    return kids


def _source_line(module: str, text: str) -> int:
    lines = (KERNELS / module).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _facts(child: Child) -> dict[str, object]:
    return triton_evidence.read(child.out / "triton_checks.json")


def _diagnose(run: dict[str, object]) -> str | None:
    best = Matcher(default_rules()).diagnose(Evidence(run=RunFacts(**triton_evidence.run_fields(run)))).best
    return None if best is None else f"{best.category}/{best.failure_mode}/{best.rule}"


def test_missing_mask_reads_and_writes_past_the_end_at_n_1000(children: dict[str, Child]) -> None:
    d = children["missing_mask"].checks()
    assert d["finished"] and d["interpreter"] and d["calls"] == 2
    n1000, n4096 = d["launches"]
    # n=1000 is not divisible by 16: no tt.divisibility on n; n=4096 is (a distinct specialisation)
    assert "n" not in n1000["attrs"] and n4096["attrs"]["n"] == {"tt.divisibility": 16}
    assert n1000["grids"] == [[4, 1, 1]] and n1000["constexprs"] == {"BLOCK": 256}
    oob = {(r["kind"], r["arg"]): r for r in d["oob"]}
    assert set(oob) == {("load", "x_ptr"), ("load", "y_ptr"), ("store", "out_ptr")}
    for r in oob.values():
        assert r["launch"] == n1000["id"]  # none at n=4096
        assert r["kernel"] == "scale_add" and r["tracked"]
        assert r["lanes"] == 24 and r["first_distance_elems"] == 24  # out[1000:1024]
        assert r["first_program"] == [3, 0, 0] and r["arg_elems"] == 1000
    assert oob[("load", "x_ptr")]["first_line"] == _source_line("missing_mask_tail.py", "x = tl.load(x_ptr + offs)")
    # the store past `out` lands outside every argument's storage: dropped, so the child lives on
    assert oob[("store", "out_ptr")]["dropped_lanes"] == 24
    assert [r["max_abs"] for r in children["missing_mask"].json("maxdiff.json")] == [0.0, 0.0]  # inside n: right

    f = _facts(children["missing_mask"])
    assert (f["oob_loads"], f["oob_stores"], f["oob_kernel"], f["oob_distance_elems"]) == (2, 1, "scale_add", 24)
    # a few elements past the end: the tail mask is missing (the general out-of-bounds rule is the runner-up)
    assert _diagnose(f) == "kernel-logic/missing-mask-tail/triton-run-oob-just-past-end"


def test_masked_vector_add_has_no_oob_and_is_specialised_like_jit(children: dict[str, Child]) -> None:
    d = children["vector_add"].checks()
    assert d["oob"] == [] and d["calls"] == 3
    sig = d["launches"][0]["signature"]
    assert sig == {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    by_n = {tuple(rec["grids"][0]): rec for rec in d["launches"]}
    # n=1 is specialised to constexpr 1, as @jit does; pointers from torch are 16-byte aligned
    assert by_n[(1, 1, 1)]["signature"]["n"] == "constexpr" and by_n[(1, 1, 1)]["constexprs"]["n"] == 1
    for rec in d["launches"]:
        c = rec["compile"]
        assert c["ok"] and c["shared"] == 0 and c["registers"] > 0 and c["spill_stores"] == 0
        assert rec["attrs"]["x_ptr"] == {"tt.divisibility": 16}
        assert compiler.parse(c["log"]).registers == c["registers"]  # ptxas -v, as the collector reads it
    f = _facts(children["vector_add"])
    assert f["oob_loads"] == f["oob_stores"] == 0 and not f["compile_failed"]
    assert _diagnose(f) is None


def test_declared_sizes_clean_but_a_probe_finds_the_block_assumption(children: dict[str, Child]) -> None:
    declared = children["block_declared"].checks()
    assert declared["oob"] == [] and declared["calls"] == 2
    probe = children["block_probe"].checks()
    assert {(r["kind"], r["arg"], r["lanes"]) for r in probe["oob"]} == {
        ("load", "x_ptr", 24),
        ("load", "y_ptr", 24),
        ("store", "out_ptr", 24),
    }
    assert _diagnose(_facts(children["block_declared"])) is None


@pytest.mark.parametrize("name", ["wrong_indexing", "row_sum", "fp16"])
def test_in_bounds_kernels_compile_and_record_nothing(children: dict[str, Child], name: str) -> None:
    d = children[name].checks()
    assert d["oob"] == [] and d["hook_errors"] == []
    assert all(rec["compile"]["ok"] and rec["ran"] == rec["calls"] for rec in d["launches"])
    ratios = [r["tolerance_ratio"] for r in children[name].json("maxdiff.json")]
    if name == "wrong_indexing":
        assert min(ratios) > 100  # the result is wrong: numerics' business, not the hooks'
    else:
        assert max(ratios) <= 1  # summation order (2 ULP) / float16 rounding (1 ULP): within the default


def test_overlapping_plain_stores_of_two_programs_are_recorded(children: dict[str, Child]) -> None:
    # overlap-add with tl.store where tl.atomic_add is meant: frame f writes out[f*hop : f*hop + 2*hop], so
    # programs f and f + 1 both store the hop elements they share
    rec = json.loads((children["overlap"].out / "triton_checks.json").read_text())["overlap"]
    assert len(rec) == 1 and rec[0]["arg"] == "out_ptr" and rec[0]["kernel"] == "overlap_add", rec
    assert rec[0]["programs"] == [[0, 0, 0], [1, 0, 0]] and rec[0]["first_elem"] == 48 and rec[0]["elems"] > 0
    # the later frame stores its own values over the earlier one's: a lost update, counted apart
    assert 0 < rec[0]["differ_elems"] <= rec[0]["elems"]
    # a kernel whose programs each own their elements records none
    assert json.loads((children["vector_add"].out / "triton_checks.json").read_text())["overlap"] == []


def test_dot_8x8_runs_in_the_interpreter_but_does_not_compile(children: dict[str, Child]) -> None:
    d = children["dot"].checks()
    (rec,) = d["launches"]
    assert rec["ran"] == 1 and rec["run_error"] is None
    assert children["dot"].json("maxdiff.json")[0]["max_abs"] < 1e-2  # the interpreter's product is right
    c = rec["compile"]
    assert not c["ok"] and c["error_type"] == "CompilationError"
    t = triton_errors.parse(c["error_text"])
    assert t is not None and t.error == "CompilationError"
    assert t.message == "Input shapes should have M >= 1, N >= 1 and K >= 16"
    assert t.src_line == 7  # `c = tl.dot(a, b)`, counted from the def line as Triton does
    f = _facts(children["dot"])
    assert f["compile_failed"] and f["compile_errors"] == (c["error_text"],)
    assert _diagnose(f) == "kernel-logic/language-misuse/triton-run-compile-fails-for-target"


def test_smem_hungry_config_is_over_the_h100_limit(children: dict[str, Child]) -> None:
    d = children["smem"].checks()
    (rec,) = d["launches"]
    c = rec["compile"]
    assert rec["options"]["num_stages"] == 4 and c["num_warps"] == 8
    assert c["ok"] and c["shared"] == 262144 > H100_SMEM == d["smem_limit_bytes"]
    t = triton_errors.parse(c["launch_error_text"])
    assert t is not None and (t.error, t.required, t.limit) == ("OutOfResources", 262144.0, float(H100_SMEM))
    f = _facts(children["smem"])
    assert f["compiled_shared_bytes"] == 262144.0 and f["smem_limit_bytes"] == float(H100_SMEM)
    # 256 KiB is over every GPU's 227 KiB, not only the H100's: the kernel's (shared/TAXONOMY.md)
    assert _diagnose(f) == "kernel-logic/resource-over-every-gpu/triton-run-smem-over-every-gpu"


def test_canary_catches_the_unmasked_store(children: dict[str, Child]) -> None:
    child = children["canary"]
    d = child.checks()
    result = child.json("result.json")
    assert result["values_ok"]
    (hit,) = result["check"]
    assert hit["name"] == "out" and hit["side"] == "after"
    assert hit["first_offset_bytes"] == 0 and hit["extent_bytes"] == 96  # out[1000:1024], float32
    # inside the guard (the argument's storage): the store goes through, so the guard sees it
    store = next(r for r in d["oob"] if r["kind"] == "store")
    assert store["arg"] == "out_ptr" and store["dropped_lanes"] == 0
    assert d["canaries"] == result["check"]
    f = _facts(child)
    assert f["canary_corrupted"] and f["canary_tensor"] == "out"


def test_hang_is_recorded_before_it_runs_and_finish_runs_on_sigint(tmp_path: Path) -> None:
    child = start_kernel("hang", "hang.py", base=tmp_path)
    checks = child.out / "triton_checks.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if json.loads(checks.read_text())["launches"]:
                break
        except (OSError, ValueError, KeyError):
            pass
        assert child.proc.poll() is None, child.wait().output
        time.sleep(0.1)
    time.sleep(0.3)  # inside the endless loop by now
    try:
        # the runner's first signal at its wall-clock limit; on a loaded machine the child may not have reached
        # the loop yet, so the signal is repeated (as a user's second Ctrl-C would be) until it stops
        for _ in range(6):
            child.proc.send_signal(signal.SIGINT)
            try:
                child.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        child.wait(timeout=1)
    finally:
        if child.proc.poll() is None:  # never leave the spinning child behind when the wait fails
            child.proc.kill()
            child.proc.wait()
    assert child.rc != 0
    d = json.loads(checks.read_text())
    (rec,) = d["launches"]
    assert d["finished"] and rec["compile"]["ok"] and rec["ran"] == 0
    assert rec["run_error"].startswith("KeyboardInterrupt")


def test_without_interpreter_launches_are_still_captured_and_compiled(children: dict[str, Child]) -> None:
    child = children["no_driver"].wait()
    assert child.rc != 0 and "0 active drivers" in child.output
    d = json.loads((child.out / "triton_checks.json").read_text())
    assert not d["interpreter"] and d["target_arch"] == "sm_86" and d["smem_limit_bytes"] == 101376
    (rec,) = d["launches"]
    assert rec["kernel"] == "add" and rec["compile"]["ok"] and rec["compile"]["target_arch"] == "sm_86"
    assert rec["ran"] == 0 and "0 active drivers" in rec["run_error"]
    assert d["oob"] == []  # bounds are checked in the interpreter only
