"""A benchmark submission Python cannot parse is the submission's failure (the harness's import fails; KernelBench
records ``compiled: false``, ``SyntaxError``), not a usage error; a kernel module kdiag was given alone stays one."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from diagnose.cli import main
from diagnose.run.targets import ProtocolError, detect

ROOT = Path(__file__).resolve().parent.parent.parent
QWEN6 = ROOT / "corpus" / "kernelbench" / "real_yh_qwen_l1_6_cuda_text_as_python"
VECTORADD = ROOT / "corpus" / "gpumode" / "problems" / "vectoradd_py"


def _run(tmp_path: Path, *argv: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    args = ["run", *argv, "--format", "json", "--runs-dir", str(tmp_path / "runs"), "--cpu", "--no-record"]
    code = main(args, out=out, err=err)
    return code, (json.loads(out.getvalue()) if out.getvalue().strip() else {}), err.getvalue()


def test_a_kernelbench_submission_that_does_not_parse_is_detected_with_its_reference() -> None:
    t = detect([str(QWEN6 / "submission.py")], reference=str(QWEN6 / "reference.py"))
    assert (t.kind, t.reference) == ("kernelbench", QWEN6 / "reference.py")
    assert t.unparsable == "line 20: SyntaxError: invalid decimal literal"


def test_it_fails_as_the_submission_in_pythons_words_with_nothing_built(tmp_path: Path) -> None:
    code, rep, _ = _run(tmp_path, str(QWEN6 / "submission.py"), "--reference", str(QWEN6 / "reference.py"))
    assert (code, rep["verdict"], rep["category"]) == (1, "fail", "kernel-logic"), rep
    assert (rep["failure_mode"], rep["rule"]) == ("compile-source-error", "run-submission-not-python")
    assert [r["name"] for r in rep["rungs"]] == ["parse"]
    log = (Path(rep["run_dir"]) / "parse.log").read_text()
    assert "line 20\n    float acc = 0.0f;\n" in log and log.endswith("SyntaxError: invalid decimal literal\n")
    assert not (Path(rep["run_dir"]) / "build").exists()  # nvcc never ran
    assert any(n.startswith("line 20: SyntaxError") for n in rep["notes"]), rep["notes"]


def test_a_gpumode_folder_whose_submission_does_not_parse_fails_the_same_way(tmp_path: Path) -> None:
    folder = tmp_path / "problems" / "vectoradd_py"
    shutil.copytree(VECTORADD, folder)
    shutil.copy(VECTORADD.parent / "utils.py", folder.parent / "utils.py")
    (folder / "submission.py").write_text("def custom_kernel(data):\n    return data[0] +\n")
    t = detect([str(folder)])
    assert t.kind == "gpumode" and t.unparsable is not None and t.unparsable.startswith("line 2: SyntaxError")
    code, rep, _ = _run(tmp_path, str(folder))
    assert (code, rep["verdict"], rep["failure_mode"]) == (1, "fail", "compile-source-error"), rep


def test_a_kernel_module_given_alone_or_a_reference_of_no_benchmark_stays_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "k.py"
    bad.write_text("def kernel(x):\n    return x +\n")
    with pytest.raises(ProtocolError, match="not valid Python"):
        detect([str(bad)])
    other = tmp_path / "ref.py"
    other.write_text("def something():\n    return 1\n")
    with pytest.raises(ProtocolError, match="not valid Python"):
        detect([str(bad)], reference=str(other))
    code, rep, err = _run(tmp_path, str(bad))
    assert code == 2 and not rep and "not valid Python" in err
