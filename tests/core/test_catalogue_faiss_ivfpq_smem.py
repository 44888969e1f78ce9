"""Faiss's GPU IVFPQ index checks its lookup tables' shared memory against the device's per-block limit without
an opt-in (faiss/gpu/GpuIndexIVFPQ.cu, verifyPQSettings_: "Device %d has %zu bytes of shared memory, while %d bits
per code and %d sub-quantizers requires %zu bytes"): the figures feed the shared-memory concept facts, and the
answer is the parameters' (fp16 tables, fewer sub-quantizers), not a bigger GPU."""

from __future__ import annotations

import pytest

from diagnose.collectors import collect
from tests.core.corpus_logs import corpus_log, decided, finding_of

RULE = "faiss-gpu-ivfpq-lookup-tables-over-smem"

# the message as Faiss 1.7+ raises it through Python, quoted in a public repository's notes (96 sub-quantizers)
PYTHON_FORM = (
    "RuntimeError: Error in void faiss::gpu::GpuIndexIVFPQ::verifyPQSettings_() const at "
    "/project/faiss/faiss/gpu/GpuIndexIVFPQ.cu:607: Error: 'requiredSmemSize <= "
    "getMaxSharedMemPerBlock(config_.device)' failed: Device 0 has 49152 bytes of shared memory, while 8 bits per "
    "code and 96 sub-quantizers requires 98304 bytes. Consider useFloat16LookupTables and/or reduce parameters\n"
)


@pytest.mark.parametrize(
    ("log", "requested"),
    [(corpus_log("holdout27", "h27b-milvus-faiss-ivfpq-lookup-smem-48k"), 65536.0), (PYTHON_FORM, 98304.0)],
)
def test_lookup_tables_over_shared_memory_are_the_parameters(log: str, requested: float) -> None:
    assert decided(log) == ("runtime-assumption", "smem-exceeds-device-limit", RULE)
    c = collect(log).concept
    assert c is not None and c.resource == "shared-memory"
    assert (c.requested, c.limit, c.over_limit) == (requested, 49152.0, True)
    assert "useFloat16LookupTables" in finding_of(log, RULE).fix
