"""Explanations, fixes and next checks that the log's own evidence does not contradict: the host compiler
version host_config.h states, the toolchain process nvcc names as crashed, an out-of-memory after earlier
epochs (a leak, not the problem size), a CUDA status of the driver/toolkit version family, a memset
rejected with invalid value, a GPU that may not be on the bus, an arch list naming a GPU newer than this one.

The logs are the real reports of corpus/holdout16 (each case's ``source`` names its thread) and messages
from the tools' own strings (the nvcc binary of CUDA 13.0: "'%s' died due to signal %d %s")."""

from __future__ import annotations

from typing import Any

import pytest
from corpus_logs import classify_text, corpus_log, finding_of


def _report(case_id: str) -> dict[str, Any]:
    return classify_text(corpus_log("holdout16", case_id)).to_dict()


@pytest.mark.parametrize(
    ("case_id", "ccbin"),
    [("h16a-torchproteinlib-gcc8-cuda10-host-config", "g++-7"), ("h16a-xmrstak-cuda9-gcc7-host-compiler", "g++-6")],
)
def test_host_compiler_fix_uses_the_version_the_toolkit_states(case_id: str, ccbin: str) -> None:
    fix = _report(case_id)["fix"]
    assert f"-ccbin {ccbin}" in fix and "g++-12" not in fix


def test_host_compiler_fix_without_a_stated_version_names_no_version() -> None:
    # crt/host_config.h of CUDA 13.0: the Visual Studio range
    text = (
        "C:\\cuda\\include\\crt/host_config.h(164): fatal error C1189: #error:  -- unsupported Microsoft Visual "
        "Studio version! Only the versions between 2019 and 2022 (inclusive) are supported!\n"
    )
    fix = classify_text(text).to_dict().get("fix") or ""
    assert "g++-12" not in fix


def test_crash_of_the_front_end_is_not_called_a_ptxas_crash() -> None:
    r = _report("h16a-hpx-nvcc-edg-pragma-internal-error")
    assert r["rule"] == "ptxas-crashed"
    assert "cudafe++" in r["what"] and "PTX assembler itself" not in r["what"]
    assert "-Xptxas" not in r["fix"] and "TRITON_PTXAS_PATH" not in r["fix"]


def test_ptxas_crash_keeps_the_assembler_remedies() -> None:
    # ggml-org/llama.cpp#8714 (the rule's own example)
    text = (
        "nvcc error   : 'ptxas' died due to signal 11 (Invalid memory reference)\nnvcc error   : 'ptxas' core dumped\n"
    )
    r = classify_text(text).to_dict()
    assert "PTX assembler" in r["what"] and "-Xptxas -O1" in r["fix"]


def test_int32_overflow_text_states_the_counts_not_an_all_zero_input() -> None:
    # the rule may answer or, below the calibrated threshold, stand as a candidate: its text is read either way
    text = corpus_log("holdout16", "h16b-tf-elementwise-mul-int32-overflow-2pow31")
    what = finding_of(text, "numerics-wrong-value-past-int32").what
    assert "all-zero" not in what and "1,024 of 2,147,483,648" in what


def test_triton_import_skew_for_a_jax_user_gives_no_torch_pinning() -> None:
    fix = _report("h16b-jax-triton-014-stale-vs-triton-nightly")["fix"]
    assert "jax-triton" in fix and "torch" not in fix


def test_unsupported_value_why_is_not_about_attention_only() -> None:
    why = _report("h16a-faiss-gpu-k-over-2048")["why"]
    assert "top-k" in why


def test_oom_after_earlier_epochs_leads_with_a_leak() -> None:
    r = _report("h16a-cutagi-resnet-realloc-without-free")
    assert r["category"] == "unknown"
    # the unmatched out-of-memory kind or the figure-less out-of-memory rule (abstaining) gives the check
    check = r["next_check"]
    leak_first = r["candidates"][0] if "candidates" in r else None
    assert (
        leak_first == {"category": "kernel-logic", "failure_mode": "memory-leak"}
        or "kernel-logic / memory-leak" in check
    )
    assert "Epoch 4/10" in check and "leak" in check and "half the batch" not in check


def test_oom_without_progress_keeps_the_problem_size_check() -> None:
    # torch's bare wording (c10/cuda/CUDACachingAllocator.cpp), no progress counter before it
    r = classify_text("RuntimeError: CUDA out of memory.\n").to_dict()
    assert "memory-leak" not in str(r.get("candidates", [])[:1])


def test_version_status_by_number_is_not_a_wrong_result() -> None:
    r = _report("h16b-insightface-rest-trt-error-222-old-driver")
    assert (r["category"], r["failure_mode"]) == ("environment", "driver-too-old")
    assert "reference on the CPU" not in (r.get("fix") or "") + (r.get("next_check") or "")


def test_cuda_initialisation_failure_never_gets_the_wrong_result_check() -> None:
    # TensorRT's wording with a status outside the version family
    text = "ERROR: CUDA initialization failure with error 999. Please check your CUDA installation\n"
    r = classify_text(text).to_dict()
    assert "reference on the CPU" not in (r.get("next_check") or "")


def test_memset_invalid_value_check_names_the_memset_branch() -> None:
    check = _report("h16b-mumax-cuda1101-memset-invalid-value")["next_check"]
    assert "memset" in check and "previous and on the latest update" in check


def test_no_driver_fix_checks_the_bus_before_a_reinstall() -> None:
    fix = _report("h16b-nvidia-smi-riser-pcie-gen-auto")["fix"]
    assert fix.index("lspci") < fix.index("DKMS")


def test_unsupported_arch_fix_drops_the_arch_before_a_newer_toolkit() -> None:
    fix = _report("h16b-opencv-jetson-nano-nvcc-no-compute-87")["fix"]
    assert fix.index("drop it") < fix.index("install a CUDA toolkit")


def test_no_kernel_image_fix_names_an_older_release_for_an_old_gpu() -> None:
    fix = _report("h16b-ultralytics-ort-gt730-below-min-cc")["fix"]
    assert "an older release that still lists it" in fix


@pytest.mark.parametrize(
    "case_id", ["h16a-vllm-minimax-m3-topk-buffer-layout", "h16b-qibojit-ravel-multigpu-illegal-address"]
)
def test_bare_illegal_address_check_names_layout_and_device(case_id: str) -> None:
    r = _report(case_id)
    assert r["category"] == "unknown"
    check = r["next_check"]
    assert "strides" in check and "CUDA_VISIBLE_DEVICES=0" in check
