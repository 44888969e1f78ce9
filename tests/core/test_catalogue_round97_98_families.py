"""Families learned from holdout97 and holdout98 (after their first measurements), each from its tool's own messages:
a check's negated contract ("not divisible by N"), torch's 32-bit packed accessor past int32 elements, an operator
``torch.ops`` does not have, ptxas's register allocation failure, NVSHMEM's generic initialisation failure, a CUDA
driver API symbol the driver lacks, a module load refused during graph capture with no driver version (holdout97);
GCC's internal compiler error, MSVC's C1083 for a header of the toolchain, libcudf's concatenation past ``size_type``,
torch's pageable copy during graph capture, the RAPIDS libraries' own input and dtype checks, a check stating the
dtypes it accepts, Python's unbound local variable (holdout98).

Each is tested on the line of the development case (its id in the comment) and on another wording of the same tool
(its source, cited in the family's ``messages``), and on nearby lines it must not take."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import (
    assert_family_abstains,
    assert_family_answers,
    classify_text,
    corpus_log,
    finding_rules,
    verdict,
)


@pytest.mark.parametrize(
    ("text", "category", "rule"),
    [
        # corpus/holdout97 h97a-torchrec-embedding-dim-1-not-div4 (the line quoted as Markdown inline code)
        (corpus_log("holdout97", "h97a-torchrec-embedding-dim-1-not-div4"), "runtime-assumption", "concept-stated"),
        # torch 2.13.0 torch/nn/functional.py: the same negated form, another check
        ("AssertionError: embed_dim 100 not divisible by num_heads 3\n", "runtime-assumption", "concept-stated"),
        # corpus/holdout97 h97a-jagged-to-padded-dense-int32-numel
        (
            corpus_log("holdout97", "h97a-jagged-to-padded-dense-int32-numel"),
            "runtime-assumption",
            "torch-packed-accessor32-numel-over-int32",
        ),
        # corpus/holdout97 h97a-fbgemm-ssd-op-missing-oss
        (
            corpus_log("holdout97", "h97a-fbgemm-ssd-op-missing-oss"),
            "environment",
            "torch-ops-namespace-op-not-registered",
        ),
        # torch/_ops.py: the same message for another library's namespace
        (
            "AttributeError: '_OpNamespace' 'torchvision' object has no attribute 'nms'\n",
            "environment",
            "torch-ops-namespace-op-not-registered",
        ),
        # corpus/holdout97 h97f-sgl-kernel-green-context-undefined-symbol-old-driver
        (
            corpus_log("holdout97", "h97f-sgl-kernel-green-context-undefined-symbol-old-driver"),
            "environment",
            "loader-undefined-cuda-driver-symbol",
        ),
        # corpus/holdout97 h97e-mjlab-warp-graph-capture-driver-12-2
        (
            corpus_log("holdout97", "h97e-mjlab-warp-graph-capture-driver-12-2"),
            "environment",
            "cuda-stream-capture-module-load",
        ),
        # corpus/holdout98 h98a-openmm-build-gcc12-ice-commonkernels
        (
            corpus_log("holdout98", "h98a-openmm-build-gcc12-ice-commonkernels"),
            "environment",
            "gcc-internal-compiler-error",
        ),
        # corpus/holdout98 h98b-pytorch3d-windows-msvc-corecrt-missing-sdk
        (
            corpus_log("holdout98", "h98b-pytorch3d-windows-msvc-corecrt-missing-sdk"),
            "environment",
            "compiler-header-missing-in-library-header",
        ),
        # corpus/holdout98 h98d-cugraph-uuid-vertex-ids-cudf-size-type-overflow
        (
            corpus_log("holdout98", "h98d-cugraph-uuid-vertex-ids-cudf-size-type-overflow"),
            "runtime-assumption",
            "cudf-column-size-limit",
        ),
        # corpus/holdout98 h98d-cugraph-int64-vertex-ids-unsupported-dtype
        (
            corpus_log("holdout98", "h98d-cugraph-int64-vertex-ids-unsupported-dtype"),
            "runtime-assumption",
            "rapids-unsupported-data-type",
        ),
        # corpus/holdout98 h98c-cogvideox-wrapper-stale-node-sage-dtype: the dtypes a check accepts, stated
        (
            "AssertionError: Input tensors must be in dtype of torch.float16 or torch.bfloat16\n",
            "runtime-assumption",
            "concept-unsupported-dtype",
        ),
        # corpus/holdout98 h98c-gguf-dequant-under-cuda-graph-capture
        (
            corpus_log("holdout98", "h98c-gguf-dequant-under-cuda-graph-capture"),
            "runtime-assumption",
            "torch-graph-capture-pageable-copy",
        ),
    ],
)
def test_a_family_answers(text: str, category: str, rule: str) -> None:
    assert_family_answers(text, category, rule)


@pytest.mark.parametrize(
    ("text", "family"),
    [
        # corpus/holdout97 h97f-sglang-gemma4-extend-attn-ptxas-regalloc-sm100: 255 is every GPU's per-thread maximum
        (
            corpus_log("holdout97", "h97f-sglang-gemma4-extend-attn-ptxas-regalloc-sm100"),
            "ptxas-register-allocation-failed-at-maximum",
        ),
        # corpus/holdout98 h98c-sageattn-fp32-qk-unbound-o: Python's unbound local, quoted without its class name
        (corpus_log("holdout98", "h98c-sageattn-fp32-qk-unbound-o"), "python-local-variable-unbound"),
        # CPython 3.11's wording of the same error
        (
            "UnboundLocalError: cannot access local variable 'o' where it is not associated with a value\n",
            "python-local-variable-unbound",
        ),
        # corpus/holdout97 h97c-torch-symmmem-nvshmem-init-before-cuda-runtime: the generic line names no step
        (corpus_log("holdout97", "h97c-torch-symmmem-nvshmem-init-before-cuda-runtime"), "nvshmem-init-failed"),
    ],
)
def test_a_family_that_abstains_keeps_its_candidates(text: str, family: str) -> None:
    assert_family_abstains(text, family)


def test_rapids_input_check_is_read_whatever_its_measured_precision() -> None:
    # cuGraph's later form of its precondition check (CUGRAPH_EXPECTS), another algorithm's condition: the family
    # reads it (its one development case, holdout98's pagerank, was a wrapper's own conversion failing the check, so
    # the calibration may keep it a candidate under the threshold) and never calls the log healthy
    text = (
        "RuntimeError: cuGraph failure at file=/opt/conda/include/cugraph/algorithms.hpp line=88: Invalid input "
        "argument: graph must be symmetric\n"
    )
    report = classify_text(text)
    assert report.status != "no-failure" and report.diagnosis is not None
    found = [f for f in report.diagnosis.findings if f.rule.startswith("rapids-invalid-input-argument")]
    assert found and found[0].category == "runtime-assumption", report.diagnosis.findings


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # ptxas given a register target below what the code needs: the limit given, not the maximum
        (
            "ptxas fatal   : Register allocation failed with register count of '64'. Compile the program with a "
            "higher register target\n",
            "ptxas-register-target-too-low",
        ),
        # NVSHMEM's transport line before the generic one decides
        (
            "/nvshmem/src/host/init/init.cu:998: non-zero status: 7 building transport map failed\n"
            "/nvshmem/src/host/init/init.cu:nvshmemi_check_state_and_init:1080: nvshmem initialization failed, exiting\n",
            "nvshmem-transport-init-failed",
        ),
    ],
)
def test_the_more_specific_line_decides(text: str, rule: str) -> None:
    status, _, got_rule = verdict(text)
    assert status == "diagnosed" and got_rule is not None and got_rule.startswith(rule), (status, got_rule)


@pytest.mark.parametrize(
    ("text", "not_rule"),
    [
        # a split that is only warned about is no stated contract broken
        ("UserWarning: hidden size 100 is not divisible by 64, padding the last block\n", "concept-stated"),
        # cuFile's own API (libcufile), not the driver's
        ("ImportError: libkvikio.so: undefined symbol: cuFileDriverOpen\n", "loader-undefined-cuda-driver-symbol"),
        # the compiler killed for memory, not its bug
        ("g++: internal compiler error: Killed (program cc1plus)\n", "gcc-internal-compiler-error"),
        # NCCL's INFO record of what it tried before another path
        (
            "ecb2de971add:35789:35964 [1] INFO nvmlDeviceGetNvLinkCapability() failed: Not Supported\n",
            "nvml-not-supported-reported",
        ),
    ],
)
def test_nearby_lines_are_not_taken(text: str, not_rule: str) -> None:
    rules = finding_rules(text)
    assert not any(r.startswith(not_rule) for r in rules), rules
