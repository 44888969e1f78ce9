"""Fix texts fit the log: its operating system, the library it names, the direction its versions show;
and every ``unknown`` answer carries a check that is a command or a concrete step.

The logs are public cases of the development corpus (corpus/holdout7 and earlier sets, each with its
repo#issue), lines from the rules' own examples (each with its provenance there), and other wordings of
the same families taken from the tools' sources: CPython's ctypes loader on Windows ("Could not find
module ... (or one of its dependencies)", 3.8+), glibc's dlerror ("cannot open shared object file"),
cuDNN 8's Windows loader, numba 0.68.1's numba/cuda/cudadrv/nvvm.py."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
import yaml

from diagnose.classify import classify_record
from diagnose.collectors import collect, host_os
from diagnose.inputs import InputRecord
from diagnose.lint import _contexts
from diagnose.lint_os import check_fix_os, linux_commands
from diagnose.matcher import Matcher
from diagnose.report import next_check
from diagnose.rules import default_rules
from diagnose.unmatched import default_kinds, hint_for

ROOT = Path(__file__).resolve().parents[2]
RULES = default_rules()
MATCHER = Matcher(RULES)


def _cases(name: str) -> dict[str, dict]:
    return {c["id"]: c for c in yaml.safe_load((ROOT / "corpus" / name / "issues.yaml").read_text())}


H7 = _cases("holdout7")


def _report(text: str):
    return classify_record(InputRecord(id="t", text=text), MATCHER)


def _best(text: str):
    report = _report(text)
    assert report.diagnosis is not None and report.diagnosis.best is not None, report.status
    return report.diagnosis.best


# --- the OS fact ---------------------------------------------------------------------------------------

WINDOWS_CUDART = (
    "FileNotFoundError: Could not find module 'cudart64_12.dll' (or one of its dependencies). "
    "Try using the full path with constructor syntax.\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (H7["numba-cuda13-windows-nvvm-dll-not-found"]["log"], True),  # numba/numba#10169
        (_cases("holdout2")["hunyuanvideo-bf16-on-sm75"]["log"], True),  # ptxas on a C:\Users\...\Temp path
        (WINDOWS_CUDART, True),  # CPython's ctypes wording on Windows
        ("OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n", False),
        (H7["nv-docker-trex-nvml-lib-missing-in-container"]["log"], False),
        # WSL is Linux: its loader path is a Linux path, even when a DLL is named in passing
        ("export LD_LIBRARY_PATH=/usr/lib/wsl/lib\nnvcuda.dll found under /usr/lib/wsl/lib/libcuda.so.1\n", False),
        ("RuntimeError: CUDA error: an illegal memory access was encountered\n", False),
    ],
)
def test_windows_fact(text: str, expected: bool) -> None:
    assert host_os.windows(text) is expected
    assert collect(text).context()["log_windows"] is expected


def test_windows_fact_never_raises_on_junk() -> None:
    assert host_os.windows("\x00\\\\%%" * 10_000) in (True, False)


# --- the OS and the library choose the text -------------------------------------------------------------


def test_windows_nvvm_log_gets_windows_steps() -> None:
    f = _best(H7["numba-cuda13-windows-nvvm-dll-not-found"]["log"])
    assert f.rule == "env-missing-nvvm-library"
    for text in (f.what, f.why, f.fix):
        assert linux_commands(text) == [], text
    assert "%CUDA_PATH%\\nvvm\\bin\\x64" in f.fix
    assert "nvidia-cuda-runtime" not in f.fix


def test_linux_nvvm_log_gets_linux_steps() -> None:
    f = _best("OSError: libnvvm.so.4: cannot open shared object file: No such file or directory\n")
    assert f.rule == "env-missing-nvvm-library"
    assert "nvvm/lib64" in f.fix and "%CUDA_PATH%" not in f.fix


def test_cudart_text_by_os() -> None:
    linux = _best("OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    windows = _best(WINDOWS_CUDART)
    assert linux.rule == windows.rule == "env-missing-shared-library"
    assert {"ldconfig", "LD_LIBRARY_PATH", "ldd"} <= set(linux_commands(linux.fix))
    assert linux_commands(windows.fix) == [] and linux_commands(windows.why) == []
    assert "where cudart64_12.dll" in windows.fix and "os.add_dll_directory" in windows.fix


def test_nvml_is_the_drivers_library_not_a_wheel() -> None:
    nvml = _best(H7["nv-docker-trex-nvml-lib-missing-in-container"]["log"])
    cudart = _best("OSError: libcudart.so.12: cannot open shared object file: No such file or directory\n")
    assert nvml.rule == "env-missing-nvml-library"
    assert (
        (nvml.category, nvml.failure_mode)
        == (cudart.category, cudart.failure_mode)
        == ("environment", "library-missing")
    )
    assert "--gpus all" in nvml.fix and "stubs" in nvml.fix
    assert "pip install" not in nvml.fix
    assert "nvidia-cuda-runtime-cu12" in cudart.fix


def test_nvml_on_windows() -> None:
    f = _best(
        "FileNotFoundError: Could not find module 'nvml.dll' (or one of its dependencies). "
        "Try using the full path with constructor syntax.\n"
    )
    assert f.rule == "env-missing-nvml-library"
    assert "where nvml.dll" in f.fix and linux_commands(f.fix) == []


@pytest.mark.parametrize(
    "text",
    [
        "ImportError: libcudnn.so.7: cannot open shared object file: No such file or directory\n",  # tensorflow#20271
        # cuDNN 8's own loader on Windows (Softcatala/whisper-ctranslate2#41)
        "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
        "Please make sure cudnn_cnn_infer64_8.dll is in your library path!\n",
    ],
)
def test_cudnn_gets_cudnn_text(text: str) -> None:
    f = _best(text)
    assert f.rule == "env-missing-cudnn-library"
    assert "cuDNN major version" in f.fix
    if host_os.windows(text):
        assert linux_commands(f.fix) == [] and "where cudnn_cnn_infer64_8.dll" in f.fix
    else:
        assert "ldconfig -p | grep cudnn" in f.fix


def test_lint_flags_linux_commands_on_a_windows_example() -> None:
    rule = RULES.get("env-missing-nvvm-library")
    assert rule is not None
    contexts = _contexts(rule)
    assert any(ctx["log_windows"] for _line, ctx in contexts)
    assert check_fix_os(rule, contexts) == []
    broken = dataclasses.replace(
        rule, explain=dataclasses.replace(rule.explain, fix="Run `ldconfig -p | grep nvvm` and set LD_LIBRARY_PATH.")
    )
    problems = check_fix_os(broken, contexts)
    assert len(problems) == 1 and "ldconfig, LD_LIBRARY_PATH" in problems[0].message


# --- the direction the versions show ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        H7["monoflex-numba-nvvm-cudatoolkit-101"]["log"],  # zhangyp15/MonoFlex#52
        # numba 0.68.1 numba/cuda/cudadrv/nvvm.py, get_supported_ccs: the warning before that error
        "UserWarning: CUDA Toolkit 10.1 is unsupported by Numba - 11.0 is the minimum required version.\n",
    ],
)
def test_numba_toolkit_too_old_for_numba(text: str) -> None:
    f = _best(text)
    assert (f.category, f.failure_mode) == ("environment", "version-skew")
    assert "too old for this Numba" in f.why and "not too new for the GPU" in f.why
    assert "pin Numba" in f.fix


def test_numba_gpu_below_toolkit_keeps_the_other_direction() -> None:
    # numba-cuda 0.30.4 numba/cuda/cudadrv/nvrtc.py (CCSupportError)
    f = _best("numba.cuda.cudadrv.error.CCSupportError: GPU compute capability 3.5 is not supported(requires >=7.5)\n")
    assert f.failure_mode == "no-kernel-image-for-arch" and "newer than the GPU" in f.why


def test_no_kernel_image_names_both_causes_and_orders_the_fix() -> None:
    bare = _best(H7["jax-prng-no-kernel-image-driver-older-than-nvcc"]["log"])  # jax-ml/jax#5723
    assert "two causes" in bare.why and "driver is older than the toolkit" in bare.why
    assert bare.fix.index("highest CUDA version the driver supports") < bare.fix.index("Find the GPU's capability")
    # torch's own message lists the archs the build covers: the build is the cause, no driver step first
    torch = _best(
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    assert "highest CUDA version the driver supports" not in torch.fix


# --- unknown answers: candidates and a concrete check ------------------------------------------------------

# a concrete step: a command or API in backticks, or an environment variable to set for a rerun
CONCRETE = re.compile(r"`[^`]+`|\b[A-Z][A-Z0-9_]+=\S+")


@pytest.mark.parametrize("kind", default_kinds(), ids=lambda k: k.kind)
@pytest.mark.parametrize("windows", [False, True])
def test_every_unmatched_check_is_concrete(kind, windows: bool) -> None:
    ctx = collect(WINDOWS_CUDART if windows else "Error\n").context()
    from diagnose.explain import render

    for text in (kind.check, *(t for _fw, t in kind.checks)):
        shown = render(text, ctx)
        assert CONCRETE.search(shown), (kind.kind, shown)
        if windows:
            assert "ldconfig" not in shown and "dmesg" not in shown, (kind.kind, shown)


@pytest.mark.parametrize("case", list(H7))
def test_every_unknown_of_holdout7_carries_a_concrete_check(case: str) -> None:
    report = _report(H7[case]["log"])
    if report.status != "unknown":
        return
    check = next_check(report)
    assert check and CONCRETE.search(check), (case, check)


@pytest.mark.parametrize(
    ("bare", "long"),
    [
        # a bare TF OOM (mikevoets/jama16-retina-replication#5) and the longer BFC text (taki0112/BigGAN-Tensorflow#12)
        ("jama16-retina-tf-oom-batch-size", "biggan-tf-oom-batch-too-large"),
    ],
)
def test_bare_oom_gets_the_candidates_of_a_longer_one(bare: str, long: str) -> None:
    def owners(case: str) -> tuple[list[tuple[str, str | None]], str]:
        report = _report(H7[case]["log"])
        d = report.diagnosis
        if report.status == "diagnosed":  # a rule that decides (a TensorFlow tensor OOM on the first steps)
            assert d is not None and d.best is not None
            return [(d.best.category, d.best.failure_mode)], d.best.caveats or ""
        assert report.status == "unknown"
        if d is not None and d.findings:  # a rule that abstains: its findings are the candidates
            found = [(f.category, f.failure_mode) for f in d.findings]
        else:  # no rule: the kind of failure's candidates
            assert report.hint is not None and report.hint.kind == "out-of-memory"
            found = [(c.category, c.failure_mode) for c in report.hint.candidates]
        return found, next_check(report) or ""

    (bare_owners, bare_check), (long_owners, long_check) = owners(bare), owners(long)
    assert bare_owners[0] == long_owners[0] == ("runtime-assumption", "oom-problem-size")
    for check in (bare_check, long_check):
        assert "`nvidia-smi`" in check and "half the batch size" in check


def test_bare_illegal_address_lists_int32_overflow() -> None:
    report = _report(H7["deepspeed-fusedadam-2-3g-elements-ima"]["log"])  # deepspeedai/DeepSpeed#3429
    assert report.status == "unknown" and report.diagnosis is not None
    modes = [(f.category, f.failure_mode) for f in report.diagnosis.findings]
    assert ("runtime-assumption", "int32-index-overflow") in modes
    assert ("runtime-assumption", "noncontiguous-input") not in modes
    assert "compute-sanitizer --tool memcheck" in (next_check(report) or "")


def test_launch_invalid_argument_gets_launch_resource_candidates() -> None:
    ev = collect(H7["hvm-cuda-launch-invalid-argument-small-l1"]["log"])
    hint = hint_for(ev)
    assert hint is not None and hint.kind == "launch-invalid-argument"
    assert ("runtime-assumption", "smem-exceeds-device-limit") in [
        (c.category, c.failure_mode) for c in hint.candidates
    ]
    assert "cudaDevAttrMaxSharedMemoryPerBlockOptin" in hint.check and "1024" in hint.check
    # the CUDA runtime's own wording of a rejected launch (cudaGetErrorString(1) of libcudart 13)
    other = hint_for(collect("kernel launch failed: invalid argument\n"))
    assert other is not None and other.kind == "launch-invalid-argument"


def test_nvml_load_failure_without_a_soname_lists_library_missing() -> None:
    hint = hint_for(collect(H7["nvidia-docker-plugin-nvml-not-in-ldcache"]["log"]))  # NVIDIA/nvidia-docker
    assert hint is not None and hint.kind == "library-not-loaded"
    assert hint.candidates[0].failure_mode == "library-missing"
    assert "ldconfig -p | grep" in hint.check and "--gpus all" in hint.check
