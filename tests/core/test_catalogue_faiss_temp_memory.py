"""Faiss's GPU temporary-memory stack checks the order allocations come back in (faiss/gpu/utils/
StackDeviceMemory.cpp, FAISS_ASSERT's "Faiss assertion '%s' failed in %s at %s:%d"): a failed order check is
one GpuResources used by several CPU threads at once; a failed CUDA status in the same functions is not."""

from __future__ import annotations

from tests.core.corpus_logs import classify_text, corpus_log, decided, finding_of

RULE = "faiss-gpu-temp-memory-stack-out-of-order"


def test_out_of_order_return_is_concurrent_use() -> None:
    # facebookresearch/faiss#1014 (Faiss before 1.6: the overflow-malloc check of returnAlloc)
    log = corpus_log("holdout24", "h24b-faiss-gpu-index-concurrent-threads")
    assert decided(log) == ("runtime-assumption", "concurrent-use-not-thread-safe", RULE)
    assert "`mallocCurrent_ >= size`" in finding_of(log, RULE).what


def test_failed_cuda_status_in_the_stack_is_not_the_order_check() -> None:
    # the stack's fallback cudaMalloc failing (facebookresearch/faiss#66, an out-of-memory), in the quoted form
    # FAISS_ASSERT prints: a CUDA status, not the order of the allocations
    log = (
        "Faiss assertion 'err == cudaSuccess' failed in char* faiss::gpu::StackDeviceMemory::Stack::getAlloc"
        "(size_t, cudaStream_t) at utils/StackDeviceMemory.cpp:71\n"
    )
    d = classify_text(log).diagnosis
    assert d is None or all(f.rule != RULE for f in d.findings)
