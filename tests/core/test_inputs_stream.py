"""Inputs stream: one output record per input record, in order, whatever the size; memory stays bounded.

The size threshold (``diagnose.inputs.READ_LIMIT``) is lowered so a file of a few MB stands in for
the gigabyte batches it is there for.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest

from diagnose import inputs
from diagnose.cli import main
from diagnose.inputs import read_inputs

LIMIT = 256 << 10
# real-dev.yaml `dest3d-chunk-scan-smem` (OpenSpaceAI/DEST3D#2)
SMEM_LOG = (
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 196608, "
    "Hardware limit: 101376. Reducing block sizes or num_stages may help.\n"
)
N = 3000
PAD = "x" * 1200


def _batch(path: Path, n: int = N, *, bad_at: int | None = None) -> Path:
    with path.open("w") as fh:
        for i in range(n):
            if i == bad_at:
                fh.write("{not json\n")
            else:
                fh.write(json.dumps({"id": f"r{i:05d}", "log": f"step {i} {PAD}\n{SMEM_LOG}"}) + "\n")
    return path


@pytest.fixture
def low_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(inputs, "READ_LIMIT", LIMIT)
    return LIMIT


def test_a_jsonl_batch_over_the_limit_gives_one_result_per_record_in_order(tmp_path: Path, low_limit: int) -> None:
    path = _batch(tmp_path / "batch.jsonl", bad_at=1500)
    assert path.stat().st_size > 10 * low_limit
    out, err = io.StringIO(), io.StringIO()
    assert main(["classify", str(path), "--format", "jsonl", "--jobs", "1"], out=out, err=err) == 1
    recs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(recs) == N
    assert [r["id"] for r in recs] == [f"r{i:05d}" if i != 1500 else "batch:1501" for i in range(N)]
    assert [r["status"] for r in recs].count("error") == 1 and "line 1501" in recs[1500]["errors"][0]
    assert all(r["category"] == "runtime-assumption" for i, r in enumerate(recs) if i != 1500)
    assert not any(r.get("warnings") for r in recs)
    assert "1 of 3000 input(s) could not be classified" in err.getvalue()


def test_reading_a_batch_holds_about_one_record(tmp_path: Path) -> None:
    path = _batch(tmp_path / "batch.jsonl")
    tracemalloc.start()
    try:
        n = sum(1 for _ in read_inputs([str(path)], limit=LIMIT))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == N
    assert peak < path.stat().st_size // 4, (peak, path.stat().st_size)


def test_only_a_single_oversized_text_log_is_cut_and_says_so(tmp_path: Path, low_limit: int) -> None:
    log = tmp_path / "huge.log"
    log.write_text(("noise " * 20 + "\n") * (4 * low_limit // 121) + SMEM_LOG)
    (rec,) = read_inputs([str(log)])
    assert len(rec.text) <= low_limit + 100 and rec.text.endswith(SMEM_LOG)
    assert rec.warnings and "head and tail" in rec.warnings[0] and f"{log.stat().st_size:,} bytes" in rec.warnings[0]
    small = tmp_path / "small.log"
    small.write_text(SMEM_LOG)
    (rec,) = read_inputs([str(small)])
    assert rec.text == SMEM_LOG and not rec.warnings


def test_a_line_over_the_limit_is_one_error_record_and_the_rest_go_on(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text(
        json.dumps({"id": "a", "log": SMEM_LOG})
        + "\n"
        + json.dumps({"id": "big", "log": "y" * (3 * LIMIT)})
        + "\n"
        + json.dumps({"id": "c", "log": SMEM_LOG})
        + "\n"
    )
    recs = list(read_inputs([str(path)], limit=LIMIT))
    assert [r.id for r in recs] == ["a", "b:2", "c"]
    assert (
        recs[1].error is not None and "over the size limit" in recs[1].error and recs[0].error is recs[2].error is None
    )


def test_large_json_files_stream_item_by_item_with_the_same_records(tmp_path: Path) -> None:
    items = [{"id": f"j{i}", "log": f"{i} {PAD}\n{SMEM_LOG}"} for i in range(600)]
    (tmp_path / "list.json").write_text(json.dumps(items))
    # KernelBench eval_results.json layout (scripts/eval_from_generations.py)
    kb = {
        str(p): [
            {"sample_id": s, "compiled": s % 2 == 0, "correctness": False, "metadata": {"e": PAD}} for s in range(3)
        ]
        for p in range(200)
    }
    (tmp_path / "eval_results.json").write_text(json.dumps(kb))
    for name in ("list.json", "eval_results.json"):
        path = tmp_path / name
        assert path.stat().st_size > 2 * LIMIT
        whole = list(read_inputs([str(path)], limit=path.stat().st_size + 1))
        streamed = list(read_inputs([str(path)], limit=LIMIT))
        assert streamed == whole and len(whole) == 600


def test_broken_large_json_keeps_the_records_before_the_break(tmp_path: Path) -> None:
    items = [{"id": f"j{i}", "log": f"{i} {PAD}"} for i in range(400)]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(items)[:-5000])
    recs = list(read_inputs([str(path)], limit=LIMIT))
    assert recs[-1].error is not None and "cannot parse json" in recs[-1].error
    assert [r.id for r in recs[:-1]] == [f"j{i}" for i in range(len(recs) - 1)] and len(recs) > 300


def test_stdin_jsonl_longer_than_the_first_read(tmp_path: Path, low_limit: int) -> None:
    data = _batch(tmp_path / "b.jsonl", n=500).read_bytes()
    assert len(data) > inputs._PEEK
    recs = list(inputs.read_stdin(io.BytesIO(data)))
    assert [r.id for r in recs] == [f"r{i:05d}" for i in range(500)]
    big = ("noise\n" * (low_limit // 3)).encode() + SMEM_LOG.encode()
    (rec,) = inputs.read_stdin(io.BytesIO(big))
    assert rec.text.endswith(SMEM_LOG) and rec.warnings


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('"' + "x" * (2 * LIMIT) + '"', "not a JSON array or object"),
        ("[" * 200_000 + "]" * 200_000, "cannot parse json"),
        (json.dumps({"a": "x" * (2 * LIMIT)}), "too large to read as one record"),
        ("{1: 2}" + " " * (2 * LIMIT), "expected a key"),
    ],
    ids=["scalar", "deeply-nested", "one-huge-object", "bad-key"],
)
def test_malformed_large_json_is_one_error_record(tmp_path: Path, content: str, error: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    (rec,) = read_inputs([str(path)], limit=LIMIT)
    assert rec.error is not None and error in rec.error


def _summary(shape: str, n: int = 1500) -> object:
    records = [{"sample": i, "correct": i % 3 != 0, "error": None if i % 3 else f"{SMEM_LOG} {PAD}"} for i in range(n)]
    if shape == "wrapped":  # a run's summary: settings, a list that is not records, then the records
        return {"model": "m", "problems": ["a", "b"], "settings": {"trials": 5}, "results": records}
    return {f"task_{i}": r for i, r in enumerate(records)}  # records keyed by the task each evaluated


@pytest.mark.parametrize("shape", ["wrapped", "keyed"])
def test_a_large_run_summary_reads_as_the_whole_one(tmp_path: Path, shape: str) -> None:
    """A summary over the read limit is read one record at a time, and gives the records the same summary gives
    when it is read whole."""
    path = tmp_path / f"{shape}.json"
    path.write_text(json.dumps(_summary(shape)))
    assert path.stat().st_size > 2 * LIMIT
    streamed = list(read_inputs([str(path)], limit=LIMIT))
    whole = list(read_inputs([str(path)]))
    assert len(streamed) == 1500 and not any(r.error for r in streamed)
    assert [(r.id, r.text, r.passed) for r in streamed] == [(r.id, r.text, r.passed) for r in whole]
    assert sum(1 for r in streamed if SMEM_LOG.strip() in (r.text or "")) == 500


def test_a_large_keyed_summary_marks_an_item_that_is_no_record(tmp_path: Path) -> None:
    data = _summary("keyed")
    data["task_7"] = "skipped"  # type: ignore[index]
    path = tmp_path / "keyed.json"
    path.write_text(json.dumps(data))
    recs = list(read_inputs([str(path)], limit=LIMIT))
    assert len(recs) == 1500 and [r.id for r in recs if r.error] == ["task_7"]


def test_the_count_hint_estimates_a_large_batch(tmp_path: Path) -> None:
    path = _batch(tmp_path / "batch.jsonl")
    assert inputs.count_hint([str(path)]) == N  # counted
    estimate = inputs.count_hint([str(path)], exact_below=LIMIT)  # estimated from the first MiB
    assert estimate is not None and 0.9 * N <= estimate <= 1.1 * N


def test_a_yaml_case_list_reads_as_pyyamls_safe_load(tmp_path: Path) -> None:
    """A YAML case list is read with libyaml's loader (where PyYAML has it): the records PyYAML's own
    ``safe_load`` gives; a file neither reads is one error record in PyYAML's own words."""
    import yaml

    root = Path(__file__).resolve().parents[2]
    for name in ("holdout2", "holdout7"):
        path = root / "corpus" / name / "issues.yaml"
        text = path.read_text(encoding="utf-8")
        assert inputs.load_yaml(text) == yaml.safe_load(text)
        assert len(list(read_inputs([str(path)]))) == len(yaml.safe_load(text)) > 10
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: a\n  log: |\n    x\n - id: b\n")
    (rec,) = read_inputs([str(bad)])
    with pytest.raises(yaml.YAMLError) as exc:
        yaml.safe_load(bad.read_text())
    assert rec.error is not None and rec.error.endswith(str(exc.value))
