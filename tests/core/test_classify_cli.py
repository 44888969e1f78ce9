"""`kdiag classify` end to end: every input form, bad records, every output format."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from diagnose.cli import main

# real-dev.yaml `cutorch-mac-driver-insufficient` (torch/cutorch#318)
DRIVER_LOG = (
    "luajit: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
    "/tmp/luarocks_cutorch-scm-1-384/cutorch/lib/THC/THCGeneral.c:16\n"
)
# real-dev.yaml `dest3d-chunk-scan-smem` (OpenSpaceAI/DEST3D#2)
SMEM_LOG = (
    "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 196608, "
    "Hardware limit: 101376. Reducing block sizes or num_stages may help.\n"
)


def run(
    argv: list[str], stdin: bytes | None = None, monkeypatch: pytest.MonkeyPatch | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_directory_with_bad_records_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a-driver.log").write_text(DRIVER_LOG)
    (tmp_path / "b-empty.log").write_text("")
    (tmp_path / "c-binary.bin").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "d-huge.log").write_text(("x" * 99 + "\n") * 530_000 + SMEM_LOG)  # ~53 MB, the error at the end
    (tmp_path / "e.jsonl").write_text(
        json.dumps({"id": "ok-1", "log": SMEM_LOG})
        + "\n{not json\n"
        + json.dumps({"id": "split", "stderr": DRIVER_LOG, "exit_code": 1})
        + "\n"
    )
    code, out, err = run(["classify", str(tmp_path), "--format", "jsonl"])
    assert code == 1 and "could not be classified" in err
    recs = {r["id"]: r for r in jsonl(out)}
    assert set(recs) == {"a-driver.log", "b-empty.log", "c-binary.bin", "d-huge.log", "ok-1", "e:2", "split"}
    assert recs["a-driver.log"]["category"] == "environment"
    assert recs["b-empty.log"]["status"] == "error" and "empty" in recs["b-empty.log"]["errors"][0]
    assert recs["c-binary.bin"]["status"] == "error" and "binary" in recs["c-binary.bin"]["errors"][0]
    assert (
        recs["e:2"]["status"] == "error"
        and "line 2" in recs["e:2"]["errors"][0]
        and recs["e:2"]["origin"] == "e.jsonl:2"
    )
    assert recs["ok-1"]["category"] == "runtime-assumption"
    assert recs["split"]["category"] == "environment"
    # the huge log is still diagnosed from its tail, and says it was cut
    assert recs["d-huge.log"]["category"] == "runtime-assumption"
    assert any("head and tail" in w for w in recs["d-huge.log"]["warnings"])


def test_jsonl_record_has_the_contract_fields(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text(SMEM_LOG)
    code, out, _ = run(["classify", str(tmp_path / "x.log"), "--format", "jsonl"])
    assert code == 0
    (rec,) = jsonl(out)
    for key in ("id", "category", "failure_mode", "rule", "confidence", "title", "evidence", "fix", "alternatives"):
        assert key in rec
    assert 0 < rec["confidence"] <= 1
    assert rec["evidence"] and rec["evidence"][0]["line"] == 1 and "Required: 196608" in rec["evidence"][0]["text"]


def test_stdin_text_and_jsonl(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["classify", "-", "--format", "jsonl"], stdin=DRIVER_LOG.encode(), monkeypatch=monkeypatch)
    assert code == 0 and jsonl(out)[0]["category"] == "environment"
    lines = (
        json.dumps({"id": "one", "log": SMEM_LOG}) + "\n" + json.dumps({"id": "two", "log": DRIVER_LOG}) + "\n"
    ).encode()
    code, out, _ = run(["classify", "-", "--format", "jsonl"], stdin=lines, monkeypatch=monkeypatch)
    assert [r["id"] for r in jsonl(out)] == ["one", "two"]


def test_table_json_and_markdown(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(DRIVER_LOG)
    (tmp_path / "b.log").write_text(SMEM_LOG)
    code, out, _ = run(["classify", str(tmp_path), "-v"])
    assert code == 0
    assert "environment" in out and "runtime-assumption" in out and "2 inputs:" in out and "by failure mode:" in out
    assert "fix:" in out and "line    1" in out
    code, out, _ = run(["classify", str(tmp_path), "--format", "json"])
    doc = json.loads(out)
    assert doc["summary"]["total"] == 2 and len(doc["reports"]) == 2
    _, out, _ = run(["classify", str(tmp_path), "--format", "markdown"])
    assert out.startswith("| id | category |") and out.count("\n| ") == 2
    # then each diagnosis in full: the cited line, what, why and the whole fix (the table clips it)
    details = out.split("## Details", 1)[1]
    assert details.count("\n### `") == 2 and "Hardware limit: 101376" in details
    assert "**What:**" in details and "**Why:**" in details and "**Fix:**" in details and "…" not in details


# real-dev style bare runtime message: the text fits several owners, so kdiag abstains
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered\n"


def test_an_abstention_cites_its_lines_and_says_what_decides(tmp_path: Path) -> None:
    (tmp_path / "ima.log").write_text(ILLEGAL)
    _, out, _ = run(["classify", str(tmp_path), "--format", "jsonl"])
    (rep,) = jsonl(out)
    assert rep["status"] == "unknown" and rep["fix"] is None
    assert [c["line"] for c in rep["evidence"]] == [1]  # the line it saw, though it does not decide
    assert rep["alternatives"] and rep["next_check"] and "sanitizer" in rep["next_check"]
    _, out, _ = run(["classify", str(tmp_path), "--format", "markdown"])
    assert "| to decide: " in out and "**To decide:**" in out and "Candidates:" not in out.split("## Details")[0]
    _, out, _ = run(["classify", str(tmp_path), "-v"])
    assert "best guess, below the answer threshold" in out and "to decide:" in out and "line    1" in out
    # an answer has no next check
    (tmp_path / "ima.log").write_text(DRIVER_LOG)
    _, out, _ = run(["classify", str(tmp_path), "--format", "jsonl"])
    assert jsonl(out)[0]["next_check"] is None


def test_kernelbench_eval_results(tmp_path: Path) -> None:
    # the layout KernelBench's scripts/eval_from_generations.py writes (add_to_eval_results_file)
    results = {
        "1": [
            {
                "sample_id": 0,
                "compiled": True,
                "correctness": True,
                "metadata": {"hardware": "NVIDIA H100"},
                "runtime": 1.2,
                "runtime_stats": {},
            }
        ],
        "2": [
            {
                "sample_id": 0,
                "compiled": False,
                "correctness": False,
                "metadata": {"other_error": "error: " + SMEM_LOG.strip()},
                "runtime": -1.0,
                "runtime_stats": {},
            }
        ],
    }
    path = tmp_path / "eval_results.json"
    path.write_text(json.dumps(results))
    code, out, _ = run(["classify", str(path), "--format", "jsonl"])
    assert code == 0
    recs = {r["id"]: r for r in jsonl(out)}
    assert recs["problem_1/sample_0"]["status"] == "pass"
    assert recs["problem_2/sample_0"]["category"] == "runtime-assumption"


def test_missing_path_and_usage_errors(tmp_path: Path) -> None:
    code, out, _ = run(["classify", str(tmp_path / "nope.log"), "--format", "jsonl"])
    assert code == 1 and "no such file" in jsonl(out)[0]["errors"][0]
    assert run(["classify"])[0] == 2
    assert run(["classify", "x", "--format", "xml"])[0] == 2
    assert run(["--help"])[0] == 0


def test_rules_list_and_show() -> None:
    code, out, _ = run(["rules", "list"])
    assert code == 0 and out.strip().endswith("rules")
    n = int(out.strip().splitlines()[-1].split()[0])
    assert n >= 60
    first = out.splitlines()[1].split()[0]
    code, out, _ = run(["rules", "show", first])
    assert code == 0 and "What it detects" in out and "How to fix it" in out and "References" in out
    code, _, err = run(["rules", "show", first[:-2]])
    assert code == 2 and "did you mean" in err


def test_parallel_workers_give_the_same_reports_in_order(tmp_path: Path) -> None:
    lines = []
    for i in range(300):
        log = [DRIVER_LOG, SMEM_LOG, "binary\x00junk", "nothing to see here\n"][i % 4]
        lines.append(json.dumps({"id": f"r{i}", "log": log}))
    path = tmp_path / "batch.jsonl"
    path.write_text("\n".join(lines) + "\n")
    _, one, _ = run(["classify", str(path), "--format", "jsonl", "-j", "1"])
    _, two, _ = run(["classify", str(path), "--format", "jsonl", "-j", "2"])
    a, b = jsonl(one), jsonl(two)
    assert [r["id"] for r in b] == [f"r{i}" for i in range(300)]
    assert [(r["category"], r["rule"]) for r in a] == [(r["category"], r["rule"]) for r in b]
    assert run(["classify", str(path), "-j", "0"])[0] == 2
