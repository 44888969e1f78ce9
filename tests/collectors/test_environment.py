"""diagnose.collectors.environment over real samples (tests/fixtures/environment, each with its .source.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose.collectors import cuda_errors
from diagnose.collectors.environment import parse, xid_table

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "environment"
XID_YAML = Path(__file__).resolve().parents[2] / "diagnose" / "data" / "xid.yaml"


def load(stem: str) -> str:
    return (FIX / f"{stem}.txt").read_text(encoding="utf-8")


def test_every_fixture_has_a_sidecar() -> None:
    bad = []
    for txt in sorted(FIX.glob("*.txt")):
        side = txt.with_suffix(".source.yaml")
        data = yaml.safe_load(side.read_text()) if side.exists() else None
        if not data or not ({"origin", "captured"} & set(data)):
            bad.append(txt.name)
    assert not bad, bad


# (fixture, issues expected (in order), other fields)
CASES = [
    (
        "captured-nvml-no-library",
        ("nvml-library-not-found", "missing-library"),
        dict(missing_library="libnvidia-ml.so.1"),
    ),
    ("captured-torch-cpu-build", ("torch-cpu-build",), {}),
    ("captured-libcudart12-missing", ("missing-library",), dict(missing_library="libcudart.so.12")),
    ("captured-no-module-triton", ("missing-module",), dict(missing_module="triton")),
    ("captured-nvcc-not-found-sh", ("nvcc-not-found",), {}),
    ("captured-nvcc-not-found-subprocess", ("nvcc-not-found",), {}),
    ("captured-cuda-home-not-set", ("cuda-home-not-set",), {}),
    ("captured-nvidia-smi-not-found", ("nvidia-smi-not-found",), {}),
    (
        "case-crosse-oom-memory-held-by-unknown",
        (),
        dict(
            smi_driver="410.48",
            smi_mem_used_mib=12799.0,
            smi_mem_total_mib=16280.0,
            smi_process_count=0,
            smi_compute_mode="Default",
        ),
    ),
    ("case-faceswap-nvml-lib-not-found", ("nvml-library-not-found", "missing-library"), {}),
    ("case-nvsentinel-fallen-off-bus-dmesg", ("gpu-fallen-off-bus",), dict(xids=(), xid=None)),
    ("case-rtx5090-xid79-fallen-off-bus", ("xid", "xid-hardware", "gpu-fallen-off-bus"), dict(xids=(79,), xid=79)),
    (
        "case-wan2gp-attrsdescriptor-triton-mismatch",
        ("import-mismatch",),
        dict(import_name="AttrsDescriptor", import_from="triton.compiler.compiler"),
    ),
    ("issue-shine-cluster-30-nvml-mismatch", ("nvml-driver-mismatch",), {}),
    ("issue-tinygrad-ogkm-47-nvml-mismatch", ("nvml-driver-mismatch",), {}),
    (
        "issue-flymyai-47-sm120",
        ("torch-arch-unsupported",),
        dict(gpu_arch="sm_120", supported_archs=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")),
    ),
    (
        "issue-sd-webui-nix-9-sm120-no-kernel-image",
        ("torch-arch-unsupported",),
        dict(gpu_arch="sm_120"),
    ),
    ("issue-fooocus-1313-driver-too-old", ("driver-too-old",), dict(found_driver_version=11040, smi_driver="470.86")),
    ("issue-pycls-183-fork", ("fork-after-cuda-init",), {}),
    (
        "issue-extension-cpp-103-undefined-symbol",
        ("abi-mismatch",),
        dict(undefined_symbol="_ZN5torch3jit11parseSchemaERKSsb"),
    ),
    ("issue-self-hosted-runners-40-smi-failed", ("no-driver",), {}),
    (
        "issue-digits-2005-busy-exclusive",
        ("exclusive-compute-mode",),
        dict(smi_compute_mode="Exclusive_Process", smi_mem_used_mib=74.0, smi_mem_total_mib=11439.0),
    ),
    (
        "page-pastebin-jJdbRLSr-xid79-smi",
        ("xid", "xid-hardware", "gpu-fallen-off-bus"),
        dict(xid=79, smi_driver="375.26", smi_process_count=3, smi_mem_used_mib=242.0, smi_compute_mode="Default"),
    ),
    ("doc-nvidia-a100-mem-xid94-mig", ("mig", "xid", "xid-hardware", "ecc-uncorrectable"), dict(xid=94)),
    ("page-abhik-xid31-mmu", ("xid", "xid-application"), dict(xid=31)),
]


@pytest.mark.parametrize(("stem", "issues", "attrs"), CASES, ids=[c[0] for c in CASES])
def test_fixture(stem: str, issues: tuple[str, ...], attrs: dict[str, object]) -> None:
    text = load(stem)
    f = parse(text)
    assert f is not None
    assert f.issues == issues
    for name, want in attrs.items():
        assert getattr(f, name) == want, name
    assert f.lines and all(1 <= n <= text.count("\n") + 1 for n in f.lines)


# CUDA errors are the CUDA collector's facts: the environment collector does not tag them again
# (one line, one fact, one owner), whichever surface form the log uses
CUDA_OWNED = [
    ("captured-cupy-insufficient-driver", ("cudaErrorInsufficientDriver",)),
    (
        "captured-cudart13-error-strings",
        (
            "cudaErrorInsufficientDriver",
            "cudaErrorNoDevice",
            "cudaErrorInvalidDevice",
            "cudaErrorNoKernelImageForDevice",
            "cudaErrorInvalidDeviceFunction",
            "cudaErrorECCUncorrectable",
            "cudaErrorUnsupportedPtxVersion",
            "cudaErrorInvalidPtx",
            "cudaErrorDevicesUnavailable",
            "cudaErrorLaunchTimeout",
            "cudaErrorAssert",
            "cudaErrorUnknown",
            "cudaErrorInitializationError",
            "cudaErrorStubLibrary",
        ),
    ),
    ("case-cutorch-mac-driver-insufficient", ("cudaErrorInsufficientDriver",)),
    ("case-remode-driver-insufficient-340", ("cudaErrorInsufficientDriver",)),
    ("case-whisper-win-tdr-launch-timeout", ("cudaErrorLaunchTimeout",)),
    ("issue-sd-webui-nix-9-sm120-no-kernel-image", ("cudaErrorNoKernelImageForDevice",)),
    ("issue-digits-2005-busy-exclusive", ("cudaErrorDevicesUnavailable",)),
]
CUDA_ERROR_TAGS = {
    "no-device",
    "invalid-device-ordinal",
    "no-kernel-image",
    "devices-busy",
    "ptx-toolchain-mismatch",
    "launch-timeout",
    "driver-too-old",
    "no-driver",
    "ecc-uncorrectable",
}


@pytest.mark.parametrize(("stem", "errors"), CUDA_OWNED, ids=[c[0] for c in CUDA_OWNED])
def test_cuda_errors_have_one_owner(stem: str, errors: tuple[str, ...]) -> None:
    text = load(stem)
    cuda = cuda_errors.parse(text)
    assert cuda is not None and cuda.errors == errors
    env = parse(text)
    assert env is None or not (set(env.issues) & CUDA_ERROR_TAGS), env.issues


def test_xid_lines_are_cited() -> None:
    text = load("case-rtx5090-xid79-fallen-off-bus")
    f = parse(text)
    assert f is not None
    assert "Xid (PCI:0000:06:00): 79" in text.splitlines()[f.lines[0] - 1]


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        # short excerpts of real messages; origins named on each line
        ("pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded", "nvml-driver-not-loaded"),  # nvidia-ml-py's error class
        ("RuntimeError: Found no NVIDIA driver on your system.", "no-driver"),  # torch c10/cuda message
        ("CUDA_VISIBLE_DEVICES=\n", "cuda-visible-devices-empty"),
        ("export CUDA_VISIBLE_DEVICES=-1", "cuda-visible-devices-empty"),
        ("CUDA_VISIBLE_DEVICES=MIG-GPU-0b6b7808-c002-f593-ac86-cd8e57757b94/1/0", "mig"),
        ("NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE (double bit error) ECC error", "ecc-uncorrectable"),
        ("failed to open /dev/nvidiactl: Permission denied", "permission-denied"),
        ("Could not load library cudnn_ops_infer64_8.dll. Error code 126", "missing-library"),
    ],
)
def test_short_messages(text: str, tag: str) -> None:
    f = parse(text)
    assert f is not None and tag in f.issues, (text, f)


def test_xid_48_is_hardware() -> None:
    f = parse("NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE (double bit error) ECC error")
    assert f is not None and f.xids == (48,) and "xid-hardware" in f.issues


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\xff junk" * 100,
        # origin: corpus/public/real-dev.yaml fla-rwkv7-ima-fixed-in-kernel
        "CUDA error: an illegal memory access was encountered\n",
        "CUDA_VISIBLE_DEVICES=0,1 python train.py\n",
        "MIGRATION step 3 finished\n",
    ],
)
def test_nothing_to_say(text: str) -> None:
    assert parse(text) is None


def test_xid_table_is_complete_and_cites_application_faults() -> None:
    table = xid_table()
    for number in (13, 31, 43, 45, 48, 63, 64, 74, 79, 94, 95, 119):
        assert number in table
    assert {n for n, e in table.items() if e["application_fault"]} == {13, 31, 43, 45}
    for e in table.values():
        assert e["origin"] in ("hardware", "driver", "application", "mixed")
        assert e["action"] and e["description"]
    assert "docs.nvidia.com/deploy/xid-errors" in XID_YAML.read_text()


# Speed is measured by bench/bench_collectors.py; these check the results on large and noisy input
# (a regex that went quadratic would make them hang instead of passing).


def test_a_long_log_without_environment_messages_says_nothing() -> None:
    log = 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n' * 10_000
    assert log.count("\n") == 30_000
    assert parse(log) is None


def test_noise_before_a_sample_changes_only_the_line_numbers() -> None:
    noise = "ordinary line with Xid-free text\n" * 2_000
    samples = [stem for stem, _, _ in CASES] + ["page-pastebin-jJdbRLSr-xid79-smi"]
    for stem in samples:
        clean = parse(load(stem))
        assert clean is not None, stem
        noisy = parse(noise + load(stem))
        assert noisy == dataclasses.replace(clean, lines=tuple(n + 2_000 for n in clean.lines)), stem


def test_the_xid_after_thirty_thousand_lines() -> None:
    text = ("ordinary line with Xid-free text\n" * 30_000) + load("case-rtx5090-xid79-fallen-off-bus")
    f = parse(text)
    assert f is not None and f.xid == 79 and f.pci_address == "0000:06:00" and min(f.lines) > 30_000


# --- the values in the messages: PCI address, driver versions, the driver's line, the missing command ---

VALUES = [
    ("case-nvsentinel-fallen-off-bus-dmesg", dict(pci_address="0000:b3:00.0", kernel_module_version="570.158.01")),
    ("case-rtx5090-xid79-fallen-off-bus", dict(pci_address="0000:06:00")),
    ("page-pastebin-jJdbRLSr-xid79-smi", dict(pci_address="0000:03:00")),
    ("doc-nvidia-a100-mem-xid94-mig", dict(pci_address="0000:01:00")),
    (
        "issue-tinygrad-ogkm-47-nvml-mismatch",
        dict(
            nvml_library_version="570.124",
            kernel_module_version=None,
            driver_message="Failed to initialize NVML: Driver/library version mismatch",
        ),
    ),
    ("issue-shine-cluster-30-nvml-mismatch", dict(nvml_library_version=None, pci_address=None)),
    (
        "issue-self-hosted-runners-40-smi-failed",
        dict(
            driver_message="NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
            "that the latest NVIDIA driver is installed and running."
        ),
    ),
    ("captured-nvcc-not-found-sh", dict(missing_command="nvcc")),
    ("captured-nvcc-not-found-subprocess", dict(missing_command="nvcc")),
    ("captured-nvidia-smi-not-found", dict(missing_command="nvidia-smi")),
    ("captured-cuda-home-not-set", dict(missing_command=None)),
    ("case-crosse-oom-memory-held-by-unknown", dict(pci_address=None, driver_message=None)),
]


@pytest.mark.parametrize(("stem", "attrs"), VALUES, ids=[c[0] for c in VALUES])
def test_message_values(stem: str, attrs: dict[str, object]) -> None:
    f = parse(load(stem))
    assert f is not None
    for name, want in attrs.items():
        assert getattr(f, name) == want, name


@pytest.mark.parametrize(
    ("text", "attrs"),
    [
        # torch.utils.cpp_extension, wrapped over lines as printed (icip-cas/AutoAlign#25)
        (
            "RuntimeError:\n      The detected CUDA version (11.8) mismatches the version that was used to compile\n"
            "      PyTorch (12.4). Please make sure to use the same CUDA versions.",
            dict(toolkit_cuda_version="11.8", torch_cuda_version="12.4"),
        ),
        # the kernel module's side of a mismatch (NVIDIA's nvidia.ko "API mismatch" message)
        (
            "NVRM: API mismatch: the client has the version 535.129.03, but\n"
            "NVRM: this kernel module has the version 535.104.05.  Please\n"
            "Failed to initialize NVML: Driver/library version mismatch",
            dict(nvml_library_version="535.129.03", kernel_module_version="535.104.05"),
        ),
        # a device node refused (nvidia-container-cli / CUDA's open of the node)
        (
            "failed to open /dev/nvidiactl: Permission denied",
            dict(denied_path="/dev/nvidiactl", permission_message="failed to open /dev/nvidiactl: Permission denied"),
        ),
        # NVML's refusal names no node (NVIDIA/nvidia-docker#393)
        (
            "nvidia-docker | 2017/06/02 17:35:05 Error: nvml: Insufficient Permissions",
            dict(
                denied_path=None,
                permission_message="nvidia-docker | 2017/06/02 17:35:05 Error: nvml: Insufficient Permissions",
            ),
        ),
        # the shells' own families: dash with a full path, cmd.exe
        ("/bin/sh: 1: /usr/local/cuda/bin/nvcc: not found", dict(missing_command="nvcc")),
        ("'nvcc' is not recognized as an internal or external command,", dict(missing_command="nvcc")),
    ],
)
def test_message_values_of_short_messages(text: str, attrs: dict[str, object]) -> None:
    f = parse(text)
    assert f is not None
    for name, want in attrs.items():
        assert getattr(f, name) == want, name


def test_values_alone_make_no_facts() -> None:
    # a PCI address, a driver version or another command missing are no environment message on their own
    for text in (
        "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build",
        "NVRM: GPU at PCI:0000:06:00: GPU-0b6b7808-c002-f593-ac86-cd8e57757b94",
        "bash: git: command not found",
    ):
        assert parse(text) is None, text


def test_a_library_the_program_warned_about_and_went_on_without_is_not_missing() -> None:
    # TensorFlow's dso_loader warning and the note after it, as printed in tensorflow/tensorflow#57103 (exit code 0)
    warned = (
        "2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
        "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
        "file or directory\n"
        "2022-08-11 14:21:29.345439: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart "
        "dlerror if you do not have a GPU set up on your machine.\n"
    )
    quiet = parse(warned)
    assert quiet is None or "missing-library" not in quiet.issues
    failed = warned + "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    facts = parse(failed)
    assert facts is not None and "missing-library" in facts.issues and facts.missing_library == "libcudnn.so.8"


def test_a_module_a_warning_names_is_not_missing_but_a_later_import_error_is() -> None:
    # torch's warning when NumPy is absent (torch/csrc/utils/tensor_numpy.cpp), as a KernelBench-X record keeps it
    # (BonnieW05/KernelBenchX data/kbx_corpus/regressions.jsonl): the run went on without NumPy
    warned = (
        "/root/miniconda3/lib/python3.13/site-packages/torch/_subclasses/functional_tensor.py:283: UserWarning: "
        "Failed to initialize NumPy: No module named 'numpy' (Triggered internally at "
        "/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)\n"
        '  cpu = _conversion_method_template(device=torch.device("cpu"))\n'
    )
    quiet = parse(warned)
    assert quiet is None or "missing-module" not in quiet.issues
    facts = parse(warned + "ModuleNotFoundError: No module named 'triton'\n")
    assert facts is not None and "missing-module" in facts.issues and facts.missing_module == "triton"


def test_a_versioned_undefined_symbol_is_named_without_its_version() -> None:
    # glibc's "undefined symbol: NAME, version LIB", as quoted in NVIDIA/cutlass#2079 (nvcc 12.6, driver 12.4)
    f = parse("undefined symbol: cudaGetDriverEntryPointByVersion, version libcudart.so.12\n")
    assert f is not None and f.undefined_symbol == "cudaGetDriverEntryPointByVersion"


def test_the_versioned_relocation_error_names_the_symbol() -> None:
    # glibc's other versioned-symbol error (elf/dl-lookup.c: "symbol %s version %s not defined in file %s with link
    # time reference%s"; older releases put a comma after the name), as quoted in deepmodeling/deepmd-kit#2241
    f = parse(
        "OSError: /envs/tf/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.11: symbol"
        " cublasLtHSHMatmulAlgoInit, version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time"
        " reference\n"
    )
    assert f is not None and "abi-mismatch" in f.issues and f.undefined_symbol == "cublasLtHSHMatmulAlgoInit"
    f = parse(
        "symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference\n"
    )
    assert f is not None and f.undefined_symbol == "cublasLtHSHMatmulAlgoInit"
