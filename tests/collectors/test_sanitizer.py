"""diagnose.collectors.sanitizer over real reports (tests/fixtures/sanitizer, each with its .source.yaml)."""

from __future__ import annotations

import time
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


def test_huge_line_and_many_lines_are_fast() -> None:
    body = load("doc-53-memcheck-demo-output-with-memcheck-debug")
    text = ("x" * 200_000 + "\n") + ("ordinary log line with ========= inside\n" * 20_000) + body
    t = time.perf_counter()
    f = parse(text)
    assert time.perf_counter() - t < 1.0
    assert f is not None and f.error_count == 2


def test_ten_thousand_unrelated_logs_are_fast() -> None:
    log = 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: boom\n' * 20
    t = time.perf_counter()
    for _ in range(10_000):
        assert parse(log) is None
    assert time.perf_counter() - t < 2.0
