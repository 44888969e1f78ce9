"""ptxas says which way a target misses a feature: "requires .target sm_80 or higher" and "not supported on
.target 'sm_90'" (the target is too old, or lacks an arch-specific feature) against "not supported on .target
sm_70 and higher" (newer targets dropped it: the legacy warp intrinsics without ``.sync``).  The second must
not get the first's "build for and run on a newer GPU".

The logs: NVlabs/xmp#6 (corpus/holdout27 h27a-xmp-ptxas-shfl-without-sync-sm70), ptxas's own line for a
legacy ``shfl`` captured here with nvcc 13 for sm_75 (tests/fixtures/catalogue-cuda), and ptxas 13.0.88's
messages "Instruction '%s' not supported on .target '%s'" / "Feature '%s' requires .target %s or higher"
(strings of bin/ptxas, the catalogue's source) filled in."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_logs import classify_text, corpus_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "catalogue-cuda"


@pytest.mark.parametrize(
    "text",
    [
        corpus_log("holdout27", "h27a-xmp-ptxas-shfl-without-sync-sm70"),
        (FIXTURES / "ptxas-shfl-without-sync-sm75.log").read_text(),
    ],
)
def test_a_feature_newer_targets_dropped_is_not_sent_to_a_newer_gpu(text: str) -> None:
    report = classify_text(text)
    d = report.diagnosis
    assert d is not None and d.best is not None
    assert d.rule == "ptxas-feature-not-on-architecture"
    assert "__shfl_sync" in (d.best.fix or "")
    assert "run on a newer GPU" not in (d.best.fix or "")


@pytest.mark.parametrize(
    "text",
    [
        "ptxas /home/u/k.ptx, line 303; error   : Instruction 'wgmma.fence' not supported on .target 'sm_90'\n",
        "ptxas /home/u/k.ptx, line 12; error   : Feature 'f16 arithmetic' requires .target sm_53 or higher\n",
    ],
)
def test_a_feature_an_older_target_lacks_stays_a_newer_target(text: str) -> None:
    assert classify_text(text).diagnosis.rule == "ptxas-feature-requires-newer-target"
