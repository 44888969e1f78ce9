"""Explanations that follow what the log shows: the figures that rule an alternative out, the line that
decides, a fix ordered by what can help, and next checks that fit the platform the program ran on."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.inputs import InputRecord
from diagnose.lint_language import CUDA_ONLY
from diagnose.matcher import Matcher
from diagnose.rules import default_rules
from diagnose.unmatched import hint_for

ROOT = Path(__file__).resolve().parents[2]
MATCHER = Matcher(default_rules())
H21 = {c["id"]: c for c in yaml.safe_load((ROOT / "corpus" / "holdout21" / "issues.yaml").read_text())}


def _report(text: str):
    return classify_record(InputRecord(id="t", text=text), MATCHER)


def _best(text: str):
    report = _report(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis


# --- out of memory: the figures rule memory held by others out -------------------------------------------


def test_tensorflow_free_about_total_rules_other_processes_out() -> None:
    d = _best(H21["h21b-tf-objdet-oom-2gb-gpu"]["log"])
    best = d.best
    assert best.failure_mode == "oom-problem-size"
    assert best.confidence > 0.6  # the figures are there: no cap for a message without them
    assert {c.line for c in best.evidence} >= {2, 3, 4}  # Total memory, Free memory, the OOM line
    assert all(a.failure_mode != "oom-other-process" for a in d.alternatives)
    assert "other processes held next to nothing" in best.what
    assert "nvidia-smi" not in best.fix and "Memory that other processes took" not in best.why


# Not a real report: a log assembled here in TensorFlow 1.4-1.14's own line formats (gpu_device.cc's one-line
# device properties, "totalMemory: X freeMemory: Y"; bfc_allocator.cc's "Stats: / Limit: / InUse:", as
# tensorflow/tensorflow#11915 prints them), with figures chosen so that another process holds most of the card
# when the session starts (no real log of that branch is in the corpus yet)
_TF_SHARED = """\
I tensorflow/core/common_runtime/gpu/gpu_device.cc:1356] Found device 0 with properties:
name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582
pciBusID: 0000:01:00.0
totalMemory: 10.91GiB freeMemory: 4.10GiB
I tensorflow/core/common_runtime/bfc_allocator.cc:702] Stats:
Limit:                  4080000000
InUse:                  4070000000
ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[123008,500]
"""


def test_tensorflow_memory_held_before_the_start_is_another_process() -> None:
    facts = collect(_TF_SHARED).context()
    assert facts["oom_pool_limit_bytes"] == 4080000000 and facts["oom_pool_in_use_bytes"] == 4070000000
    assert not facts["oom_others_ruled_out"]
    best = _best(_TF_SHARED).best
    assert best.failure_mode == "oom-other-process", best.rule
    assert "PyTorch" not in best.what


def test_torch_process_holding_the_device_rules_other_processes_out() -> None:
    text = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.15 GiB of which 10.69 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in "
        "use. Of the allocated memory 77.52 GiB is allocated by PyTorch, and 1.11 GiB is reserved by PyTorch but "
        "unallocated."
    )
    facts = collect(text).context()
    assert facts["oom_others_ruled_out"] and facts["oom_held_by_others_bytes"] < 2**30


# --- Triton: the line with the figures is cited ---------------------------------------------------------


def test_triton_out_of_resources_cites_the_figures_line() -> None:
    best = _best(H21["h21a-sglang-extend-attn-smem-sm120"]["log"]).best
    assert best.rule == "triton-out-of-resources-smem"
    assert any("Required: 106496" in c.text for c in best.evidence)


def test_triton_out_of_resources_on_one_line_cites_it_once() -> None:
    text = (
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536\n"
    )
    best = _best(text).best
    assert [c.line for c in best.evidence] == [1]


# --- no kernel image: the build first, the driver only for PTX ------------------------------------------


def test_no_kernel_image_fix_leads_with_the_build_not_the_driver() -> None:
    best = _best(H21["h21a-torch28-cu128-gtx1050-no-kernel-image"]["log"]).best
    first = re.split(r"(?<=\.)\s", best.fix)[0]
    assert "driver" not in first
    assert best.fix.index("install a build that includes it") < best.fix.index("A driver upgrade helps only")
    assert "stop there" not in best.fix


# --- a library an imported extension links is missing: rebuild first --------------------------------------


def test_extension_linking_a_missing_cudart_leads_with_the_rebuild() -> None:
    best = _best(H21["h21a-correlation-ext-stale-libcudart"]["log"]).best
    assert best.fix.index("rebuild the extension") < best.fix.index("Installing the old")
    assert "build/" in best.fix and "LD_LIBRARY_PATH" in best.fix


def test_a_library_loaded_by_hand_keeps_the_install_advice() -> None:
    text = "OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    best = _best(text).best
    assert best.fix.startswith("Install the matching version")


# --- next checks that fit the platform --------------------------------------------------------------------


def test_pallas_tpu_logs_get_no_cuda_tools() -> None:
    for case in ("h21b-pallas-tpu-reduction-axis-not-innermost", "h21b-pallas-mosaic-block-dim-4-not-8"):
        ev = collect(H21[case]["log"])
        assert ev.context()["log_tpu"], case
        hint = hint_for(ev)
        assert hint is not None and "TPU" in hint.check, case
        assert not CUDA_ONLY.search(hint.check), (case, hint.check)


def test_a_jax_log_from_a_gpu_keeps_its_jax_check() -> None:
    text = "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUBLAS_STATUS_EXECUTION_FAILED\n"
    ev = collect(text)
    assert not ev.context()["log_tpu"]
    hint = hint_for(ev)
    assert hint is not None and "nvidia-*-cu12" in hint.check
