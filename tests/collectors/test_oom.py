"""diagnose.collectors.oom over real OOM reports (tests/fixtures/oom, each with a .source.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from diagnose.collectors.oom import parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "oom"
GiB, MiB, KiB = 2**30, 2**20, 2**10


def load(stem: str) -> str:
    return (FIX / f"{stem}.log").read_text(encoding="utf-8")


def test_every_fixture_has_a_sidecar() -> None:
    missing = [
        log.name
        for log in sorted(FIX.glob("*.log"))
        if "origin" not in (yaml.safe_load(log.with_name(log.stem + ".source.yaml").read_text()) or {})
    ]
    assert not missing, missing


def approx(x: float) -> Any:
    return pytest.approx(x, rel=1e-9)


def test_new_form_several_other_processes() -> None:
    f = parse(load("torch_new_multi_process_rank0"))
    assert f is not None and f.kind == "torch"
    assert f.requested_bytes == approx(572 * MiB)
    assert f.total_bytes == approx(39.49 * GiB)
    assert f.free_bytes == approx(321.31 * MiB)
    assert f.process_bytes == approx(37.46 * GiB)  # "this process" is not another process
    assert f.other_process_count == 4
    assert f.other_process_bytes == approx(4 * 414 * MiB)
    assert f.allocated_bytes == approx(36.04 * GiB)
    assert f.reserved_unallocated_bytes == approx(321.37 * MiB)
    assert f.lines == (4,)


def test_torch21_spelling_and_container_pid() -> None:
    f = parse(load("torch21_capacty_typo"))
    assert f is not None
    assert f.total_bytes == approx(14.75 * GiB)
    # in a container torch cannot recognise its own pid: the one "Process" is likely the job itself
    assert f.process_bytes is None
    assert (f.other_process_count, f.other_process_bytes) == (1, approx(14.52 * GiB))


def test_wrapped_message() -> None:
    f = parse(load("torch_new_wrapped"))
    assert f is not None
    assert f.free_bytes == approx(8.44 * MiB)
    assert f.process_bytes == approx(15.32 * GiB)
    assert f.reserved_unallocated_bytes == approx(410.41 * MiB)


def test_old_form_reserved_in_total() -> None:
    f = parse(load("torch_old_reserved"))
    assert f is not None and f.kind == "torch"
    assert f.requested_bytes == approx(60 * MiB)
    assert f.total_bytes == approx(11.17 * GiB)
    assert f.allocated_bytes == approx(505.96 * MiB)
    assert f.free_bytes == approx(12.5 * MiB)
    assert f.reserved_unallocated_bytes == approx(530 * MiB - 505.96 * MiB)
    assert f.other_process_bytes is None and f.process_bytes is None


def test_old_form_zero_bytes_free() -> None:
    f = parse(load("torch_old_zero_free"))
    assert f is not None and f.free_bytes == 0.0


def test_oldest_form_cached() -> None:
    f = parse(load("torch_old_cached_chained"))
    assert f is not None
    assert f.reserved_unallocated_bytes == approx(607 * KiB)
    assert f.allocated_bytes == approx(14.25 * GiB)
    assert f.lines == (5,)


def test_cupy_forms() -> None:
    f = parse(load("cupy_allocated_so_far"))
    assert f is not None and f.kind == "cupy"
    assert (f.requested_bytes, f.allocated_bytes) == (25_600_000.0, 3_635_267_072.0)
    g = parse(load("cupy_old_total"))
    assert g is not None and g.kind == "cupy" and g.requested_bytes == 1073741824.0


def test_tensorflow() -> None:
    f = parse(load("tensorflow_resource_exhausted"))
    assert f is not None and f.kind == "tensorflow" and f.lines == (1,)


@pytest.mark.parametrize(
    ("stem", "requested"), [("legacy_thc_out_of_memory", None), ("tf_cuda_error_out_of_memory", 19104890880.0)]
)
def test_generic(stem: str, requested: float | None) -> None:
    f = parse(load(stem))
    assert f is not None and f.kind == "generic" and f.requested_bytes == requested


@pytest.mark.parametrize(
    "text",
    ["", "Out of memory? no.", "the dataloader ran out of workers", "cudaErrorInsufficientDriver", "\x00\xff" * 50],
)
def test_no_oom(text: str) -> None:
    f = parse(text)
    assert f is None or f.kind is not None


def test_unrelated_text_is_none() -> None:
    assert parse("epoch 3 finished, 12.00 GiB in use") is None


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def test_a_long_log_without_an_oom_says_nothing() -> None:
    assert parse("".join(f"step {i} mem 3.1 GiB\n" for i in range(30_000))) is None


def test_noise_before_a_report_changes_only_the_line_numbers() -> None:
    # the noise is a job's progress: the report then also says the job got that far (its last line)
    noise = "".join(f"step {i} mem 3.1 GiB\n" for i in range(2_000))
    logs = sorted(FIX.glob("*.log"))
    assert logs
    for log in logs:
        clean = parse(log.read_text(encoding="utf-8"))
        assert clean is not None and clean.kind, log.name
        noisy = parse(noise + log.read_text(encoding="utf-8"))
        progress = clean.progress or "step 1999 mem 3.1 GiB"
        moved = dataclasses.replace(clean, lines=tuple(n + 2_000 for n in clean.lines), progress=progress)
        assert noisy == moved, log.name


def test_the_report_after_thirty_thousand_lines() -> None:
    noise = "".join(f"step {i} mem 3.1 GiB\n" for i in range(30_000))
    f = parse(noise + load("torch_new_multi_process_rank0"))
    assert f is not None and f.kind == "torch" and f.requested_bytes == approx(572 * MiB)
    assert f.other_process_count == 4 and min(f.lines) > 30_000


@pytest.mark.parametrize(
    "line",
    [
        # a project's own check macro printing cudaGetErrorString(cudaErrorMemoryAllocation) (AMReX-Codes/amrex#3189)
        "amrex::Abort::0::CUDA error 2 in file ../../../../amrex/Src/Base/AMReX_Arena.cpp line 169: out of memory !!!",
        # the same string after the failing call's name, as CUDA samples' checkCudaErrors-style macros print it
        "cudaMalloc failed: out of memory",
    ],
)
def test_cuda_error_string_after_a_check_macro(line: str) -> None:
    f = parse(line)
    assert f is not None and f.kind == "generic" and f.lines == (1,)


def test_out_of_memory_without_cuda_is_not_a_gpu_oom() -> None:
    assert parse("the host ran out of memory while loading the dataset") is None


def test_tensorflow_allocator_warning_that_says_it_is_not_a_failure() -> None:
    # bfc_allocator.cc's retry warning, as TensorFlow prints it (tensorflow/core/common_runtime/bfc_allocator.cc)
    warning = (
        "2019-04-12 10:11:12.345678: W tensorflow/core/common_runtime/bfc_allocator.cc:211] Allocator (GPU_0_bfc) "
        "ran out of memory trying to allocate 2.26GiB. The caller indicates that this is not a failure, but may mean "
        "that there could be performance gains if more memory were available."
    )
    assert parse(warning) is None
    # the real OOM later in the same log is still read, on its own line
    f = parse(warning + "\nResourceExhaustedError: OOM when allocating tensor with shape[8,512,512,64]")
    assert f is not None and f.kind == "tensorflow" and f.lines == (2,)


def test_the_copied_check_macro_prints_the_text_before_the_call() -> None:
    # lhnguyen102/cuTAGI#71 (corpus/holdout16 h16a-cutagi-resnet-realloc-without-free): CHECK_CUDA_ERROR's
    # "CUDA Runtime Error at: FILE:LINE", then cudaGetErrorString's text and the call, after epochs of training
    log = (
        "Epoch 4/10 | training error: 43.58% | test error: 48.08%:  40%| 4/10 [25:27<38:13, 382.20s/it]"
        "CUDA Runtime Error at: /home/mf/Documents/RESNET/cuTAGI/src/data_struct_cuda.cu:83\n"
        "out of memory cudaMalloc(&this->d_jcb, size * sizeof(float))\n"
    )
    f = parse(log)
    assert f is not None and f.kind == "generic" and f.lines == (2,)
    assert f.progress is not None and f.progress.startswith("Epoch 4/10")
    # the words alone, in prose, stay no GPU OOM
    assert parse("we ran out of memory cudaMalloc-ing nothing") is None
