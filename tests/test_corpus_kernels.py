"""Every labelled corpus kernel, through `kdiag run FILE --format json`, reaches its label.

corpus/kernels/labels.yaml says, for each Triton kernel in the native protocol, the verdict, category
and failure mode the run must reach without a GPU (``--cpu``: Triton's interpreter on CPU tensors, with
kdiag's bounds checks and a compile for the target GPU).  corpus/gpu/*.cu need a GPU to run; here they
must at least compile to the right diagnosis or report that the run rung is unavailable.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "corpus" / "kernels"
LABELS = yaml.safe_load((KERNELS / "labels.yaml").read_text())
#: `suite: false` marks a kernel whose kind of check another one here covers: right when run by hand, not run
#: here, to keep the suite's time (the list below is what runs, so nothing is skipped unseen)
SUITE = sorted(n for n, lab in LABELS.items() if lab.get("suite", True))


def _timeout(path: Path) -> int:
    # the hang kernel needs a short limit to be called a hang; the others a generous one, so a loaded
    # machine never turns a slow interpreter run into a false "hang" (a limit costs nothing unless hit)
    return 12 if path.name == "hang.py" else 120


@pytest.mark.parametrize("name", SUITE, ids=lambda n: Path(n).stem)
def test_corpus_kernel_reaches_its_label(name: str, corpus_run) -> None:
    label = LABELS[name]
    # probes only where the label is about them: the declared-size verdicts do not depend on them,
    # and tests/probes covers a correct kernel passing every quick probe
    probes = "quick" if label["verdict"] == "assumption" else "none"
    code, rep, _ = corpus_run(KERNELS / name, probes=probes, timeout=_timeout(KERNELS / name))
    assert rep["verdict"] == label["verdict"], rep
    if label["verdict"] == "pass":
        assert code == 0 and rep["category"] in ("none", None, "pass"), rep
        return
    assert code == 1
    assert rep["category"] == label["category"], rep
    modes = [rep["failure_mode"]] + [f["failure_mode"] for f in rep.get("findings", [])]
    assert label["failure_mode"] in modes, (label, modes)
    assert Path(rep["run_dir"]).is_dir()
