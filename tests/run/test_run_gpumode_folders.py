"""GPU MODE problem folders as the reference-kernels repository lays them out (corpus/gpumode/): loaded in
place (task.yml's files:, utils.py in the folder above), the tests: as the contract, the problem's own
check_implementation deciding correctness, probes beyond the harness's inputs reported as notes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from diagnose.run.targets import ProtocolError, detect

ROOT = Path(__file__).resolve().parent.parent.parent
CASES = ROOT / "corpus" / "gpumode"
LABELS = yaml.safe_load((CASES / "labels.yaml").read_text())
VECTORADD = CASES / "problems" / "vectoradd_py"


def test_a_problem_folder_is_a_gpumode_target_assembled_in_place() -> None:
    t = detect([str(VECTORADD)])
    assert (t.kind, t.path, t.reference) == ("gpumode", VECTORADD / "submission.py", VECTORADD / "reference.py")
    assert t.sizes == ({"size": 64, "seed": 4242}, {"size": 100, "seed": 5236})
    files = dict(t.files)
    assert files["utils"] == str((CASES / "problems" / "utils.py").resolve())  # the folder above, not moved
    assert files["submission"] == str((VECTORADD / "submission.py").resolve())
    assert t.checker and t.uses_triton and t.harness_contract
    # a submission file in the folder is the same problem, with that file as @SUBMISSION@
    other = detect([str(VECTORADD / "wrong_submission.py")])
    assert dict(other.files)["submission"] == str((VECTORADD / "wrong_submission.py").resolve())


def test_a_problem_whose_check_scales_its_tolerance_is_assembled_with_its_own_checker() -> None:
    # prefixsum_py: a check_implementation of its own (not utils' make_match_reference), three tests
    folder = CASES / "problems" / "prefixsum_py"
    t = detect([str(folder / "exclusive_submission.py")])
    assert (t.kind, t.reference) == ("gpumode", folder / "reference.py")
    assert [s["size"] for s in t.sizes] == [1023, 5000, 9000]
    assert t.checker and t.uses_triton and t.harness_contract
    assert dict(t.files)["submission"] == str((folder / "exclusive_submission.py").resolve())


def test_a_folder_whose_files_are_missing_is_a_usage_error(write, tmp_path: Path) -> None:
    write(
        tmp_path, "task.yml", 'files:\n  - {"name": "utils.py", "source": "../nowhere/utils.py"}\ntests:\n  - {n: 4}\n'
    )
    write(tmp_path, "reference.py", "def ref_kernel(d): ...\ndef generate_input(n): ...\n")
    write(tmp_path, "submission.py", "def custom_kernel(d): ...\n")
    with pytest.raises(ProtocolError, match=r"assembles utils.py from \.\./nowhere/utils.py"):
        detect([str(tmp_path)])
    # the runner itself (config.main, eval.py beside the problems in the repository) is never needed
    main = '  - {"name": "eval.py", "source": "../eval.py"}\nconfig:\n  main: "eval.py"\ntests:\n  - {n: 4}\n'
    (tmp_path / "task.yml").write_text("files:\n" + main)
    assert detect([str(tmp_path)]).files == ()
    (tmp_path / "task.yml").write_text("tests:\n  - {n: 4, seed: }\n")
    assert detect([str(tmp_path)]).sizes == ({"n": 4, "seed": 1},)  # an empty seed gets one


EXIT = {"pass": 0, "fail": 1, "no-result": 4}


#: a label with ``suite: false`` is run by hand (its kind of check is covered by a suite case; suite time)
SUITE = sorted(c for c in LABELS if LABELS[c].get("suite", True))


@pytest.mark.slow
@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=[pytest.mark.toolkit] if LABELS[c].get("toolkit") else []) for c in SUITE]
)
def test_gpumode_case_reaches_its_label(case: str, kdiag_run) -> None:
    label = LABELS[case]
    probes = "quick" if "non-contiguous" in str(label.get("note", "")) else "none"
    code, out, err = kdiag_run(str(CASES / case), "--ladder", "none", "--probes", probes)
    assert out is not None, err
    assert out["verdict"] == label["verdict"], (out["title"], out.get("notes"))
    assert code == EXIT[label["verdict"]]
    assert out["target"]["kind"] == "gpumode"
    notes = " | ".join(out.get("notes") or ())
    if label["verdict"] == "no-result":  # a CUDA submission without a GPU: compiled, not run
        assert (out["category"], label.get("title", "")) == (label["category"], label.get("title", ""))
        assert label.get("title", "") in out["title"]
        assert label.get("note", "") in notes
        return
    assert "check_implementation" in notes  # the problem's checker decided, not kdiag's dtype-strict comparison
    if "note" in label:
        assert label["note"] in notes
    if "category" in label:
        assert out["category"] == label["category"]
    for key in ("failure_mode", "rule"):
        if key in label:
            assert out[key] == label[key], (key, out["title"])
    repro = (out.get("shrink") or {}).get("repro")
    if label["verdict"] == "fail" and repro:  # the repro imports the problem's files where they lie too
        run = subprocess.run([sys.executable, repro], capture_output=True, text=True, timeout=120)
        assert run.returncode == 1 and "No module named" not in run.stdout + run.stderr, run.stdout + run.stderr


def test_a_checker_rejection_of_outputs_that_differ_is_a_wrong_result_not_an_invalid_one() -> None:
    import numpy as np

    from diagnose.run import compare as C

    ref = np.ones(8, np.float32)
    wrong = C.SizeResult(label="n=8", ok=False, leaves=(C.compare_arrays(ref * 1.2, ref, "float32", "float32", None),))
    rejected = C.checked(wrong, {"good": False, "message": "8 mismatched elements"})
    assert (rejected.ok, rejected.invalid) == (False, None)  # kdiag's numbers say where: a wrong result
    same = C.SizeResult(label="n=8", ok=True, leaves=(C.compare_arrays(ref, ref, "float32", "float32", None),))
    stricter = C.checked(same, {"good": False, "message": "bad"})  # only the checker objects: its message says why
    assert (stricter.ok, stricter.invalid) == (False, "check_implementation: bad")
    assert C.checked(wrong, {"good": True}).ok  # the problem's tolerance lets it through
