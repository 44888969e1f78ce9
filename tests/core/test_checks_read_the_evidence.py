"""The check kdiag gives reads what this log shows, and reaches no conclusion the evidence contradicts.

- A misaligned address: a size that is not a multiple of the alignment a library kernel was built for
  (CUTLASS's ``AlignmentA/B/C``, a GEMM's m, n, k) misaligns a freshly allocated buffer too, so the check
  weighs the sizes before it reads "a fresh buffer still fails" as the kernel's fault.
- An illegal address in the CUDA toolkit's own libraries (Thrust, CUB) or an XLA build: the release A/B
  names another CUDA toolkit, a newer one first.
- A release or commit the log names as where the failure began leads the check with bisecting it.
- A wrong value in a log about masked rows names the fully masked softmax row (-inf max, NaN or a
  finite sentinel).
- A driver's status beside the ptxas line its JIT printed is the driver's, not a toolkit's ptxas.
- "no kernel image" names rebuilding a project's own extension where it runs.

Logs: the public cases of corpus/holdout17 (each with its repo#issue there) and holdout12.
"""

from __future__ import annotations

from diagnose.collectors import collect
from tests.core.corpus_logs import classify_text, corpus_log


def _check(where: str, case: str) -> str:
    report = classify_text(corpus_log(where, case))
    assert report.status == "unknown", report.status
    return str(report.to_dict()["next_check"])


def test_a_misaligned_address_check_weighs_sizes_before_a_fresh_buffer() -> None:
    check = _check("holdout17", "h17a-cutlass-grouped-gemm-m36-misaligned")
    sizes = check.index("AlignmentA/B/C")
    fresh = check.index("if it still fails")
    assert sizes < fresh, check
    assert "m, n, k" in check and "freshly allocated buffer" in check and "the caller's" in check


def test_an_illegal_address_in_thrust_names_another_cuda_toolkit() -> None:
    check = _check("holdout17", "h17a-gauhuman-merge-sort-ima-cuda114")
    assert "another CUDA toolkit, a newer one first" in check and "thrust::merge_sort" in check


def test_an_illegal_address_check_leads_with_the_commit_the_log_names() -> None:
    log = corpus_log("holdout17", "h17b-trueno-mulwide-illegal-address")
    assert collect(log).context()["log_regression_at"] == "63a976ff"
    check = _check("holdout17", "h17b-trueno-mulwide-illegal-address")
    assert check.startswith("The log names 63a976ff as the change the failure began with: bisect"), check


def test_advice_to_upgrade_is_not_where_a_failure_began() -> None:
    log = corpus_log("holdout12", "jax-system-ptxas-12-1-shadows-pip-ptxas")
    assert "upgrade to CUDA 12.6.3" in log
    assert collect(log).context()["log_regression_at"] is None
    assert "The log names" not in str(classify_text(log).to_dict().get("next_check"))


def test_a_masked_row_log_names_the_fully_masked_softmax_row() -> None:
    check = _check("holdout17", "h17a-flashinfer-masked-row-finite-lse")
    assert check.startswith("The log speaks of masks: look at the fully masked rows first"), check
    assert "-inf" in check and "sentinel" in check and "NaN" in check


def test_a_wrong_value_without_masks_gets_no_masked_row_text() -> None:
    check = _check("holdout17", "h17a-ik-llama-fattn-mma-512-masked-nan")
    assert "masked rows" not in check and "The log names" not in check


def test_the_drivers_ptx_status_beside_a_jit_ptxas_line_is_the_drivers() -> None:
    report = classify_text(corpus_log("holdout17", "h17b-hashcat-ptx-version-newer-than-driver"))
    d = report.diagnosis
    assert d is not None and (d.category, d.failure_mode) == ("environment", "driver-too-old"), d
    what = str(report.to_dict()["what"])
    assert "The PTX is ISA 7.3; the driver's JIT knows up to 7.2." in what, what


def test_no_kernel_image_names_rebuilding_an_extension_built_elsewhere() -> None:
    report = classify_text(corpus_log("holdout17", "h17a-caddn-extension-not-rebuilt-docker"))
    fix = str(report.to_dict()["fix"])
    assert "rebuild it where it runs" in fix and "build folder" in fix, fix
