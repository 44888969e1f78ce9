"""diagnose.collectors.sanitizer over real reports (tests/fixtures/sanitizer, each with its .source.yaml)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from diagnose.collectors.sanitizer import parse

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "sanitizer"


def load(stem: str) -> str:
    return (FIX / f"{stem}.txt").read_text(encoding="utf-8")


def test_every_fixture_has_a_sidecar_with_an_origin() -> None:
    missing = []
    for txt in sorted(FIX.glob("*.txt")):
        side = txt.with_suffix(".source.yaml")
        if not side.exists() or "origin" not in (yaml.safe_load(side.read_text()) or {}):
            missing.append(txt.name)
    assert not missing, missing


# (fixture, tool, first kind, attributes of the facts)
CASES = [
    # NVIDIA docs (compute-sanitizer 13.5 in the nvidia-cuda-sanitizer-api 13.5.25 wheel)
    (
        "doc-04-understanding-memcheck-errors",
        "memcheck",
        "misaligned-global-write",
        dict(access="write", space="global", access_size=4, misaligned=True, kernel="unaligned_kernel()"),
    ),
    ("doc-09-understanding-memcheck-errors", "memcheck", "malloc-free-error", {}),
    ("doc-14-understanding-memcheck-errors", "memcheck", "leak", dict(leaks=1)),
    ("doc-15-understanding-memcheck-errors", "memcheck", "leak", dict(leaks=1)),
    ("doc-16-understanding-memcheck-errors", "memcheck", "api-error", dict(api_error=None)),
    ("doc-17-tensor-core-mma-guardrails", "memcheck", "tensor-memory-guardrail", {}),
    (
        "doc-19-understanding-racecheck-analysis-reports",
        "racecheck",
        "race-shared",
        dict(race_hazards=4, error_count=0, warning_count=1),
    ),
    (
        "doc-20-understanding-racecheck-hazard-reports",
        "racecheck",
        "race-shared",
        dict(space="shared", race_hazards=1, kernel="WAW()"),
    ),
    ("doc-21-understanding-racecheck-hazard-reports", "racecheck", "race-shared", dict(space="shared")),
    ("doc-25-racecheck-cluster-entry-and-exit-race-de", "racecheck", "invalid-shared-read", dict(error_count=2)),
    ("doc-28-racecheck-deadlock-detection", "racecheck", "barrier-deadlock", dict(barrier_error=True)),
    (
        "doc-31-initcheck-address-space-selection",
        "initcheck",
        "uninitialized-shared-read",
        dict(uninitialized=True, space="shared", access_size=4),
    ),
    ("doc-34-unused-memory-detection", "initcheck", "unused-memory", dict(error_count=0, warning_count=2)),
    (
        "doc-36-understanding-synccheck-reports",
        "synccheck",
        "barrier-divergence",
        dict(barrier_error=True, kernel="ThreadDivergence(int *, int)"),
    ),
    (
        "doc-40-optix-support",
        "memcheck",
        "invalid-global-write",
        dict(out_of_bounds=True, allocation_relation="after", allocation_distance_bytes=262132, access_size=1),
    ),
    ("doc-41-optix-support", "memcheck", "leak", dict(leaks=1)),
    (
        "doc-51-memcheck-demo-output-with-memcheck-relea",
        "memcheck",
        "misaligned-global-write",
        dict(
            error_count=2,
            misaligned=True,
            out_of_bounds=True,
            allocation_relation="inside",
            kinds=("misaligned-global-write", "invalid-global-write"),
        ),
    ),
    ("doc-53-memcheck-demo-output-with-memcheck-debug", "memcheck", "misaligned-global-write", dict(error_count=2)),
    ("doc-54-leak-checking-in-compute-sanitizer", "memcheck", "leak", dict(leaks=1, error_count=3)),
    ("doc-56-block-level-hazards", "racecheck", "race-shared", dict(race_hazards=508, error_count=1)),
    ("doc-58-warp-level-hazards", "racecheck", "race-shared", dict(error_count=0, warning_count=1)),
    (
        "doc-60-memset-error",
        "initcheck",
        "uninitialized-global-read",
        dict(uninitialized=True, access="read", space="global", access_size=4, kernel="vectorAdd(int *)"),
    ),
    ("doc-62-divergent-threads", "synccheck", "barrier-divergence", dict(kernel="myKernel(int *, int *)")),
    ("doc-64-illegal-syncwarp", "synccheck", "barrier-invalid-arguments", dict(kernel="myKernel(int *)")),
    ("doc-66-api-error-suppression", "memcheck", "api-error", dict(api_error="cudaErrorMemoryAllocation")),
    ("doc-68-api-error-suppression", "memcheck", None, dict(error_count=0, kinds=())),
    ("doc-70-initcheck-error-suppression", "initcheck", "uninitialized-global-read", dict(error_count=1)),
    ("doc-72-initcheck-error-suppression", "initcheck", None, dict(error_count=0)),
    # real-dev.yaml cases
    (
        "case-onnxruntime-resize-trilinear-oob-write",
        "memcheck",
        "invalid-global-write",
        dict(access="write", space="global", access_size=4, out_of_bounds=True),
    ),
    (
        "case-gkeyll-reduction-oob-read",
        "memcheck",
        "invalid-global-access",
        dict(
            space="global",
            out_of_bounds=True,
            allocation_relation="before",
            allocation_distance_bytes=96,
            kernel="array_integrate_blockRedAtomic_cub<(unsigned int)256>(gkyl_array_integrate *, const gkyl_array *, "
            "double, const gkyl_array *, gkyl_range, gkyl_range, double *)",
        ),
    ),
    (
        "case-hecbench-surfel-missing-syncthreads",
        "racecheck",
        "race-shared",
        dict(
            error_count=21,
            warning_count=0,
            race_hazards=12808 + 12860 + 12876 + 12588,
            kernel="surfel_render_tile<float, 256>",
        ),
    ),
    ("case-llamacpp-fattn-divergent-syncthreads", "synccheck", "barrier-divergence", dict(barrier_error=True)),
    # public bug reports
    (
        "issue-hecbench-112-access-at-oob",
        "memcheck",
        "invalid-global-read",
        dict(out_of_bounds=True, allocation_relation="after", allocation_distance_bytes=1),
    ),
    ("issue-cccl-1229-shared-misaligned", "memcheck", "misaligned-shared-read", dict(access_size=16, space="shared")),
    ("issue-concrete-core-332-old-at-format", "memcheck", "invalid-global-read", dict(access_size=8)),
    (
        "issue-quicksilver-48-cuda-memcheck",
        "memcheck",
        "invalid-global-read",
        dict(access_size=8, kernel="CycleTrackingKernel(MonteCarlo*, int, ParticleVault*, ParticleVault*)"),
    ),
    ("issue-cccl-1891-initcheck", "initcheck", "uninitialized-global-read", dict(access_size=8)),
    (
        "issue-cccl-2104-initcheck-old-location",
        "initcheck",
        "uninitialized-global-read",
        dict(kernel="ThreadLoad<LOAD_CG,const unsigned int *>"),
    ),
    ("issue-cucollections-538-api-error", "memcheck", "api-error", dict(api_error="cudaErrorInvalidValue")),
    ("issue-warp-943-illegal-instruction", "memcheck", "hardware-exception", {}),
    (
        "issue-hecbench-133-race-warning",
        "racecheck",
        "race-shared",
        dict(race_hazards=294291 + 294127, error_count=0, warning_count=1),
    ),
    ("issue-gunrock-844-old-warn-hazard", "racecheck", "race-shared", dict(space="shared", warning_count=1)),
    ("issue-mallocmc-249-atomic-misaligned", "memcheck", "misaligned-global-atomic", dict(access="atomic")),
    ("issue-fuser-2930-local-misaligned", "memcheck", "misaligned-local-write", dict(space="local", access_size=16)),
    (
        "issue-sanitizer-samples-19-unknown-access",
        "memcheck",
        "invalid-shared-access",
        dict(access=None, access_size=2048, out_of_bounds=True),
    ),
    ("issue-cudf-23900-race-error", "racecheck", "race-shared", dict(race_hazards=48, error_count=1)),
    ("issue-seissol-1621-summary", "memcheck", "invalid-global-read", dict(error_count=32, access_size=1)),
]


@pytest.mark.parametrize(("stem", "tool", "first_kind", "attrs"), CASES, ids=[c[0] for c in CASES])
def test_fixture(stem: str, tool: str, first_kind: str | None, attrs: dict[str, object]) -> None:
    f = parse(load(stem))
    assert f is not None
    assert f.tool == tool
    assert f.first_kind == first_kind
    for name, want in attrs.items():
        assert getattr(f, name) == want, name
    assert f.lines, "facts must cite lines"
    text_lines = load(stem).splitlines()
    for r in f.records:
        assert r.log_line is not None and 1 <= r.log_line <= len(text_lines)


def test_record_fields_of_the_doc_memcheck_demo() -> None:
    f = parse(load("doc-53-memcheck-demo-output-with-memcheck-debug"))
    assert f is not None
    first, second = f.records
    assert (first.function, first.source, first.thread, first.block) == (
        "unaligned_kernel()",
        "memcheck_demo.cu:34",
        "(0,0,0)",
        "(0,0,0)",
    )
    assert first.allocation is not None and "inside the nearest allocation" in first.allocation
    # the access happened in a device function; the kernel is the outermost device frame
    assert second.function == "out_of_bounds_function()"
    assert second.kernel == "out_of_bounds_kernel()"
    assert second.address == "0x87654320"
    assert second.allocation is not None and "137,179,965,340,896 bytes before" in second.allocation


def test_old_waw_hazard_record() -> None:
    f = parse(load("doc-20-understanding-racecheck-hazard-reports"))
    assert f is not None
    (r,) = f.records
    assert (r.kind, r.address, r.block, r.thread, r.source) == (
        "race-shared",
        "0x0",
        "(0,0,0)",
        "(0,0,0)",
        "raceWAW.cu:20",
    )


def test_tool_from_the_command_line() -> None:
    f = parse(load("issue-cccl-1891-initcheck"))
    assert f is not None and f.tool == "initcheck"


def test_headerless_fragment_without_prefix() -> None:
    # origin: corpus/public/real-dev.yaml gkeyll-reduction-oob-read, prefix removed as people paste it
    text = "\n".join(line.replace("=========", "", 1) for line in load("case-gkeyll-reduction-oob-read").splitlines())
    f = parse(text)
    assert f is not None and f.first_kind == "invalid-global-access" and f.out_of_bounds


# --- no report: None -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\xff binary junk \x00" * 50,
        # origin: corpus/public/real-dev.yaml fla-rwkv7-ima-fixed-in-kernel
        "CUDA error: an illegal memory access was encountered\n",
        # pytest's own separators use the same character
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.11.7, pytest-8.4.1\n"
        "========================= 3 passed, 1 warning in 0.52s =========================\n",
        # a shell reporting SIGILL is not a sanitizer hardware exception
        "Illegal instruction (core dumped)\n",
        # racecheck's tool warning alone reports no hazard (NVIDIA docs, "Racecheck support for cuda::barrier")
        load("doc-24-racecheck-support-for-cuda-barrier"),
        # racecheck's synchronization trace is information, not an error
        load("doc-27-racecheck-synchronization-tracing"),
    ],
)
def test_no_report(text: str) -> None:
    assert parse(text) is None


def test_a_report_after_a_huge_line_and_many_lines_is_read() -> None:
    # speed on such input is measured by bench/bench_collectors.py, not here
    body = load("doc-53-memcheck-demo-output-with-memcheck-debug")
    text = ("x" * 200_000 + "\n") + ("ordinary log line with ========= inside\n" * 20_000) + body
    f, clean = parse(text), parse(body)
    assert f is not None and clean is not None and f.error_count == 2
    # the same facts as the report read alone, its lines moved past the 20,001 lines in front of it
    assert dataclasses.replace(f, lines=clean.lines, records=clean.records) == clean
    assert [dataclasses.replace(r, log_line=r.log_line - 20_001) for r in f.records] == list(clean.records)
    assert min(f.lines) > 20_001


def test_an_unrelated_traceback_is_no_report() -> None:
    log = 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n' * 20
    assert parse(log) is None


# --- the values of the first report (address, thread, allocation, frames) ----------------------

# (fixture, the facts of its first report): every value is read from the fixture's own text
FIRST_REPORT = [
    (
        # memcheck, release build: no source lines, a host backtrace
        "doc-51-memcheck-demo-output-with-memcheck-relea",
        dict(
            message="Invalid __global__ write of size 4 bytes",
            address="0x710fdca00001",
            null_address=None,
            thread="(0,0,0)",
            block="(0,0,0)",
            function=None,  # the access is in the kernel itself
            source=None,
            host_frame="run_unaligned() in memcheck_demo",
            allocation_address="0x710fdca00000",
            allocation_size_bytes=4,
            misaligned_by=1,
        ),
    ),
    (
        # memcheck, old "Address ... is out of bounds / and is N bytes before" partial paste (11.x host frames)
        "case-gkeyll-reduction-oob-read",
        dict(
            message=None,
            address="0x7f7640a003a0",
            thread="(57,0,0)",
            block="(0,0,0)",
            function="gkyl_array_integrate_op_none_1x_ser_p1",
            device_frame="array_integrate_blockRedAtomic_cub<(unsigned int)256>(gkyl_array_integrate *, "
            "const gkyl_array *, double, const gkyl_array *, gkyl_range, gkyl_range, double *)",
            host_frame="gkyl_array_integrate_advance_cu (zero/array_integrate_cu.cu:134)",
            allocation_address="0x7f7640a00400",
            allocation_size_bytes=96,
        ),
    ),
    (
        # "Access at 0x... is out of bounds" wording
        "issue-hecbench-112-access-at-oob",
        dict(
            address="0x7f71b9e01360",
            thread="(1,0,0)",
            allocation_address="0x7f71b9e00a00",
            allocation_size_bytes=2400,
        ),
    ),
    (
        # cuda-memcheck: the only host frame is the driver's, so none is the application's
        "issue-quicksilver-48-cuda-memcheck",
        dict(address="0x7f153e0002e8", thread="(127,0,0)", block="(194,0,0)", host_frame=None),
    ),
    (
        # no source on the `at` line: the first device frame with one gives it
        "issue-warp-943-illegal-instruction",
        dict(
            function="__cuda_sm70_shflsync_down_p",
            source="tile_reduce.h:72",
            device_frame="__shfl_down_sync(unsigned int, unsigned int, unsigned int, int)",
            host_frame="wp_cuda_launch_kernel in warp.so",
        ),
    ),
    # a 3-D thread and block index; a 4-byte atomic at ...51 is 1 byte past a 4-byte boundary
    (
        "issue-mallocmc-249-atomic-misaligned",
        dict(thread="(0,1,0)", block="(0,3,1)", address="0x7ff15fe22051", misaligned_by=1),
    ),
    # a 16-byte local store at ...94 is 4 bytes past a 16-byte boundary
    ("issue-fuser-2930-local-misaligned", dict(address="0xfffa94", misaligned_by=4, null_address=None)),
    # out of bounds, not misaligned
    ("issue-hecbench-112-access-at-oob", dict(misaligned_by=None)),
    # shared and local addresses are offsets in their own window: never a null pointer
    ("issue-cccl-1229-shared-misaligned", dict(address="0x8", null_address=None)),
    (
        "doc-31-initcheck-address-space-selection",
        dict(address="0x0", null_address=None, source="uninitialized_shared.cu:7"),
    ),
    ("doc-20-understanding-racecheck-hazard-reports", dict(address="0x0", null_address=None)),
    # racecheck: the accesses of the first hazard, new and old formats
    (
        "doc-19-understanding-racecheck-analysis-reports",
        dict(accesses=("write at raceGroupBasic.cu:40", "read at raceGroupBasic:46"), address=None, thread=None),
    ),
    (
        "doc-58-warp-level-hazards",
        dict(
            accesses=(
                "write by thread (35,0,0) at Racecheck/warp_error.cu:44",
                "read by thread (32,0,0) at Racecheck/warp_error.cu:56",
            ),
            thread="(35,0,0)",
        ),
    ),
    (
        "issue-cudf-23900-race-error",
        dict(
            accesses=("write at delta_binary.cuh:324", "read at delta_binary.cuh:312", "read at delta_binary.cuh:312")
        ),
    ),
    # racecheck deadlock: thread, block and location are on the header line
    (
        "doc-28-racecheck-deadlock-detection",
        dict(thread="(0,0,0)", block="(0,0,0)", source="app.cu:98", null_address=None),
    ),
    # leaks and unused memory
    ("doc-54-leak-checking-in-compute-sanitizer", dict(leaked_bytes=1024, host_frame="main in memcheck_demo")),
    ("doc-34-unused-memory-detection", dict(allocation_size_bytes=100, unwritten_bytes=80)),
    # synccheck and initcheck
    ("doc-36-understanding-synccheck-reports", dict(thread="(37,0,0)", source="divergence.cu:79")),
    ("issue-cccl-1891-initcheck", dict(thread="(16,0,0)", block="(80,0,0)", address="0x7f615d40daf0")),
    # an API error has no address; the only host frames are the driver's and the runtime's
    (
        "issue-cucollections-538-api-error",
        dict(
            message='Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to '
            "cudaFuncSetAttribute.",
            address=None,
            host_frame=None,
        ),
    ),
]


@pytest.mark.parametrize(("stem", "attrs"), FIRST_REPORT, ids=[c[0] for c in FIRST_REPORT])
def test_first_report_values(stem: str, attrs: dict[str, object]) -> None:
    f = parse(load(stem))
    assert f is not None
    for name, want in attrs.items():
        assert getattr(f, name) == want, name


def test_function_is_the_device_function_the_kernel_called() -> None:
    # NVIDIA's memcheck_demo (debug build): the write is in out_of_bounds_function(), called by the kernel
    text = load("doc-53-memcheck-demo-output-with-memcheck-debug")
    second = text[text.index("Running unaligned_kernel") :]
    f = parse(second)
    assert f is not None
    assert (f.kernel, f.function, f.source) == (
        "out_of_bounds_kernel()",
        "out_of_bounds_function()",
        "memcheck_demo.cu:39",
    )


def test_a_long_source_path_keeps_its_file_and_line() -> None:
    f = parse(load("doc-60-memset-error"))
    assert f is not None and f.source == "Initcheck/memset_error.cu:41"


def test_null_address_of_a_global_access() -> None:
    # ORNL/HeCBench#131: a write through a null pointer ("Access at 0x0"), terabytes before an allocation
    f = parse(load("issue-hecbench-131-null-write"))
    assert f is not None
    assert (f.first_kind, f.address, f.null_address) == ("invalid-global-write", "0x0", "0x0")
    assert (f.allocation_relation, f.allocation_distance_bytes) == ("before", 140229602181120)
    assert (f.allocation_address, f.allocation_size_bytes) == ("0x7f89bfa00000", 1020)
    # any other global address is not
    f = parse(load("issue-hecbench-112-access-at-oob"))
    assert f is not None and f.null_address is None


def test_access_to_inside_an_allocation_and_a_library_host_frame() -> None:
    # pytorch/pytorch#196209: "Access to 0x... is out of bounds / and is inside the nearest allocation"
    f = parse(load("issue-pytorch-196209-inside-allocation"))
    assert f is not None
    assert (f.address, f.allocation_relation, f.allocation_address, f.allocation_size_bytes) == (
        "0x147267fff80",
        "inside",
        "0x14725400000",
        20971520,
    )
    assert f.host_frame == "launch_bulk_copy_range(at::Tensor, int) in bulk_copy_range.so"


def test_the_misaligned_shared_or_local_exception_names_its_memory_space() -> None:
    # memcheck's hardware exception for shared/local memory, as quoted in NVIDIA/cutlass#2906 (a CUTLASS mainloop)
    text = (
        "========= COMPUTE-SANITIZER\n"
        "========= Misaligned shared or local address\n"
        "=========     at ...MainloopSm120TmaWarpSpecializedBlockScaled...\n"
    )
    f = parse(text)
    assert f is not None and f.first_kind == "misaligned-shared-local-hw"
    # the other exceptions stay hardware exceptions
    g = parse(text.replace("Misaligned shared or local address", "Warp Illegal Address"))
    assert g is not None and g.first_kind == "hardware-exception"


def _case(path: str, case_id: str) -> str:
    cases = yaml.safe_load((Path(__file__).resolve().parent.parent.parent / path).read_text(encoding="utf-8"))
    return next(c["log"] for c in cases if c["id"] == case_id)


def test_a_report_behind_a_test_runners_prefix_is_read() -> None:
    # PaddlePaddle/Paddle#55352 (corpus/holdout31 h31a-paddle-fast-ln-fwd-smem-race): `pytest -v` prints the
    # node id and the racecheck record follows on the same line
    f = parse(_case("corpus/holdout31/issues.yaml", "h31a-paddle-fast-ln-fwd-smem-race"))
    assert f is not None and f.first_kind == "race-shared"
    assert f.lines == (2, 3)
    assert f.kernel is not None and "phi::funcs::fast_ln_fwd_kernel<" in f.kernel
    assert f.accesses == ("read at funcs/layer_norm_impl.cu.h:264", "write at funcs/layer_norm_impl.cu.h:289")
    assert f.race_hazards == 2048
    # numba/numba#7284 (corpus/holdout numba-test-kernel-arg-forall-oob): unittest's verbose
    # "test_name (module.Class) ..." before the memcheck header
    g = parse(_case("corpus/holdout/issues.yaml", "numba-test-kernel-arg-forall-oob"))
    assert g is not None and g.first_kind == "invalid-global-read"
    assert g.lines[:2] == (2, 3)


def test_a_runners_prefix_without_the_report_prefix_is_not_read() -> None:
    assert parse("test_x.py::test_y PASSED\n[rank0]: Error: something else\n") is None


def test_a_kernel_launched_from_inside_a_closed_nvidia_library_names_the_library() -> None:
    # cupy/cupy#4628 (corpus/holdout35 h35b-cupy-batched-svd-cusolver100-oob): cuda-memcheck's host frame is
    # cuSOLVER's shared object, with no source line in the report
    f = parse(_case("corpus/holdout35/issues.yaml", "h35b-cupy-batched-svd-cusolver100-oob"))
    assert f is not None and f.launch_library == "cuSOLVER"
    assert f.launch_module == "libcusolver.so.10.0"
    # ggml-org/llama.cpp#24489 (corpus/holdout10): compute-sanitizer's frames without a name, the module on the next
    # line; the driver's frame is passed over and NCCL's is the launch
    g = parse(_case("corpus/holdout10/issues.yaml", "ggml-nccl-allreduce-oob-write-vmm-pool-peer-access"))
    assert g is not None and g.launch_library == "NCCL" and g.launch_module == "libnccl.so.2"


def test_a_kernel_the_application_launched_names_no_library() -> None:
    # the documentation's memcheck demo: the program's own host frames
    f = parse(load("doc-51-memcheck-demo-output-with-memcheck-relea"))
    assert f is not None and f.launch_library is None
    # gkeyll's own shared object launches its kernel (and the report has source lines)
    g = parse(load("case-gkeyll-reduction-oob-read"))
    assert g is not None and g.launch_library is None
