"""diagnose.run.triton_evidence: triton_checks.json → RunFacts fields (parent side: no torch, no triton).

The files here are made by the tests in the shape harness.triton_hooks writes (the child tests in
test_triton_hooks_child.py read real ones); the figures are those of the corpus kernels.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from diagnose.facts import RunFacts
from diagnose.run import triton_evidence as te

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp: Path, **data: Any) -> Path:
    base: dict[str, Any] = {
        "schema": 1,
        "finished": True,
        "interpreter": True,
        "target_gpu": "H100",
        "target_arch": "sm_90",
        "smem_limit_bytes": 232448,
        "calls": 1,
        "launches": [],
        "oob": [],
        "canaries": None,
        "hook_errors": [],
    }
    base.update(data)
    p = tmp / "triton_checks.json"
    p.write_text(json.dumps(base))
    return p


def _launch(kernel: str = "k", trial: bool = False, **compile_: Any) -> dict[str, Any]:
    c = {"ok": True, "shared": 0, "registers": 16, "spill_stores": 0, "spill_loads": 0}
    c.update(compile_)
    return {"kernel": kernel, "autotune_trial": trial, "compile": c}


def test_missing_broken_or_foreign_files_say_nothing(tmp_path: Path) -> None:
    assert te.read(tmp_path / "absent.json") == {}
    (tmp_path / "junk.json").write_text("{not json")
    assert te.read(tmp_path / "junk.json") == {}
    (tmp_path / "list.json").write_text("[1, 2]")
    assert te.read(tmp_path / "list.json") == {}
    (tmp_path / "other.json").write_text(json.dumps({"schema": 99}))
    assert te.read(tmp_path / "other.json") == {}
    assert te.read(tmp_path) == {}  # a folder


def test_a_clean_run_gives_zero_counts_and_run_fields_build_runfacts(tmp_path: Path) -> None:
    f = te.read(_write(tmp_path, calls=3, launches=[_launch(shared=0, registers=16)]))
    facts = RunFacts(**te.run_fields(f))  # type: ignore[arg-type]
    assert facts.interpreter and facts.launches == 3 and facts.oob_loads == facts.oob_stores == 0
    assert facts.target_gpu == "H100" and facts.target_arch == "sm_90" and facts.smem_limit_bytes == 232448.0
    assert facts.compiled_registers == 16 and facts.compiled_shared_bytes == 0.0 and not facts.compile_failed
    assert f["compile_errors"] == () and f["notes"] == ()


def test_oob_counts_ops_by_kind_and_takes_the_first_access(tmp_path: Path) -> None:
    oob = [
        {"kernel": "b", "kind": "load", "arg": "x_ptr", "ops": 3, "first_distance_elems": 7, "order": 1},
        {"kernel": "a", "kind": "load", "arg": "y_ptr", "ops": 2, "first_distance_elems": -4, "order": 0},
        {"kernel": "a", "kind": "store", "arg": "o", "ops": 1, "first_distance_elems": 24, "order": 2},
        {"kernel": "a", "kind": "atomic", "arg": "h", "ops": 5, "first_distance_elems": 1, "order": 3},
    ]
    f = te.read(_write(tmp_path, oob=oob))
    assert (f["oob_loads"], f["oob_stores"]) == (5, 6)
    assert f["oob_kernel"] == "a" and f["oob_distance_elems"] == -4  # before the start of y_ptr
    assert len(f["oob_records"]) == 4  # type: ignore[arg-type]


def test_stores_of_two_programs_or_two_lanes_to_one_element_are_read(tmp_path: Path) -> None:
    overlap = [
        {"kernel": "ola", "arg": "out_ptr", "arg_elems": 4160, "elems": 4096, "programs": [[0, 0, 0], [1, 0, 0]]},
        {"kernel": "ola", "arg": "out_ptr", "arg_elems": 1488, "elems": 1392, "programs": [[0, 0, 0], [1, 0, 0]]},
    ]
    f = te.read(_write(tmp_path, overlap=overlap))
    facts = RunFacts(**te.run_fields(f))  # type: ignore[arg-type]
    assert (facts.store_overlap_elems, facts.store_overlap_arg, facts.store_overlap_kernel) == (4096, "out_ptr", "ola")
    assert facts.store_overlap_programs == "programs (0, 0, 0) and (1, 0, 0)"
    lanes = [{"kernel": "hist", "arg": "bins", "elems": 32, "programs": [[3, 0, 0], [3, 0, 0]]}]
    assert te.read(_write(tmp_path, overlap=lanes))["store_overlap_programs"] == "two lanes of program (3, 0, 0)"
    assert RunFacts(**te.run_fields(te.read(_write(tmp_path)))).store_overlap_elems == 0
    # the elements a later program stored another value into: a record without the count (an older run) reads as 0
    assert facts.store_overlap_differ_elems == 0
    differ = [{**overlap[0], "differ_elems": 4000}]
    assert te.read(_write(tmp_path, overlap=differ))["store_overlap_differ_elems"] == 4000


def test_compile_failure_and_smem_texts_go_to_the_collectors(tmp_path: Path) -> None:
    from diagnose.collectors import triton_errors

    # the text of a real 8x8 tl.dot compile for sm_90 (tests/fixtures/triton/compile-dot-k-too-small.log)
    err = (ROOT / "tests/fixtures/triton/compile-dot-k-too-small.log").read_text()
    oor = (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, "
        "Hardware limit: 232448. Reducing block sizes or `num_stages` may help."
    )
    launches = [
        _launch("small_dot", ok=False, error_type="CompilationError", error_text=err, registers=None),
        _launch(
            "matmul",
            shared=262144,
            registers=128,
            spill_stores=8,
            spill_loads=12,
            launch_error_text=oor,
            log="ptxas info    : Used 128 registers",
        ),
    ]
    f = te.read(_write(tmp_path, calls=2, launches=launches))
    assert f["compile_failed"] and f["compiled_shared_bytes"] == 262144.0
    assert f["compiled_registers"] == 128 and f["compiled_spills"] == 20
    assert f["compile_errors"] == (err, oor) and f["ptxas_logs"] == ("ptxas info    : Used 128 registers",)
    parsed = [triton_errors.parse(t) for t in f["compile_errors"]]  # type: ignore[union-attr]
    assert [p.error for p in parsed if p] == ["CompilationError", "OutOfResources"]


def test_autotuner_trials_do_not_count_when_the_kernel_also_ran_for_real(tmp_path: Path) -> None:
    launches = [
        _launch("mm", trial=True, shared=300000),  # a config the autotuner would skip on the GPU
        _launch("mm", trial=True, ok=False, error_type="CompilationError", error_text="x"),
        _launch("mm", trial=False, shared=98304),  # the config it picked
    ]
    f = te.read(_write(tmp_path, calls=3, launches=launches))
    assert f["compiled_shared_bytes"] == 98304.0 and not f["compile_failed"]
    assert f["notes"] == ("2 autotuner trial compile(s) not counted",)
    # every config of a kernel failed: then they count
    f = te.read(_write(tmp_path, calls=1, launches=[launches[1]]))
    assert f["compile_failed"]


def test_canaries_unfinished_runs_and_hook_errors(tmp_path: Path) -> None:
    hit = {
        "name": "out",
        "side": "after",
        "first_offset_bytes": 0,
        "first_offset_elems": 0,
        "corrupted_bytes": 96,
        "extent_bytes": 96,
        "guard_bytes": 65632,
    }
    f = te.read(_write(tmp_path, finished=False, canaries=[hit], hook_errors=["check load: ValueError()"]))
    assert f["canary_corrupted"] and f["canary_tensor"] == "out"
    assert len(f["notes"]) == 2  # type: ignore[arg-type]
    f = te.read(_write(tmp_path, canaries=[]))
    assert "canary_corrupted" not in f


def test_reading_imports_no_gpu_framework() -> None:
    code = (
        "import sys, json\nfrom pathlib import Path\nfrom diagnose.run import triton_evidence\n"
        "triton_evidence.read(Path('/nonexistent'))\n"
        "print(json.dumps(sorted(m for m in ('torch', 'triton', 'cupy', 'harness') if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
