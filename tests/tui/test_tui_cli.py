"""`kdiag tui` and `kdiag triage` reach the UI through diagnose.cli, which never imports it itself."""

from __future__ import annotations

import io
import subprocess
import sys

from diagnose.cli import main


def test_tui_help_goes_through_kdiag():
    out, err = io.StringIO(), io.StringIO()
    assert main(["tui", "--help"], out=out, err=err) == 0
    assert "usage: kdiag tui" in out.getvalue()


def test_bad_paths_and_a_missing_target_are_usage_errors(tmp_path):
    err = io.StringIO()
    assert main(["tui", str(tmp_path / "nope.jsonl")], out=io.StringIO(), err=err) == 2
    assert "no such file" in err.getvalue()
    assert main(["triage"], out=io.StringIO(), err=io.StringIO()) == 2
    assert main(["triage", "--ladder", "sideways", "k.py"], out=io.StringIO(), err=io.StringIO()) == 2


def test_kdiag_help_lists_the_ui_commands_without_importing_the_ui():
    code = (
        "import atexit, sys\nfrom diagnose.cli import main\n"
        "atexit.register(lambda: print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'tui'))))\n"
        "main(['--help'])\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "triage" in res.stdout and "tui" in res.stdout
    assert res.stdout.strip().splitlines()[-1] == "[]"
