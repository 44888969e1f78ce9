"""Families learned from holdout103 (after its first measurement), each from its tool's own check.

punica's BGMV dispatcher when a layer's widths are not among those it was compiled for (vLLM's csrc/punica),
text-embeddings-inference's start-up check of the GPU's compute capability against its image's, and Transformers'
refusal of FlashAttention 2 where torch has no CUDA device (modeling_utils.py), and an assertion whose message states
the maximum it was checked against (TensorRT-LLM's LoRA rank against the engine's). Each is tested on the development
cases and on nearby text that must not take its answer."""

from __future__ import annotations

import pytest

from tests.core.corpus_logs import assert_family_answers, corpus_log, verdict


@pytest.mark.parametrize(
    ("case_id", "category", "rule"),
    [
        ("h103a-vllm-punica-bgmv-hout-3424-tp8", "runtime-assumption", "vllm-punica-no-kernel-for-size"),
        ("h103a-vllm-punica-bgmv-qwen2-8960-not-compiled", "runtime-assumption", "vllm-punica-no-kernel-for-size"),
        ("h103b-tei-default-image-cc80-on-rtx2080", "environment", "tei-image-compute-cap-mismatch"),
        ("h103b-xinference-qwen3-reranker-fa2-on-cpu", "runtime-assumption", "transformers-flash-attn2-needs-a-gpu"),
        # an assertion whose message names the maximum the engine was built with (TensorRT-LLM's TLLM_CHECK_WITH_INFO)
        ("h103a-trtllm-lora-rank-1024-exceeds-max", "runtime-assumption", "assert-size-within-configured-maximum"),
    ],
)
def test_a_family_from_the_tool_s_own_check_answers_its_case(case_id: str, category: str, rule: str) -> None:
    assert_family_answers(corpus_log("holdout103", case_id), category, rule)


@pytest.mark.parametrize(
    "text",
    [
        # the other reasons Transformers gives after the same preface are the install's, not the device's
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: the "
        "package flash_attn seems to be not installed.\n",
        # a compute-capability report that is no TEI start-up check
        "Compute cap: 80\n",
    ],
)
def test_the_families_answer_only_their_own_reason(text: str) -> None:
    rule = verdict(text)[2]
    assert rule not in ("transformers-flash-attn2-needs-a-gpu", "tei-image-compute-cap-mismatch"), rule
