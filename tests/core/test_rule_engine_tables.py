"""The stored rule-engine parser tables are the installed grammar's, and rule-engine parses with them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# in a child: rule-engine must not be imported yet when the tables are installed
CHECK = r"""
import sys
from diagnose import rule_engine_tables as t
assert t.install(), "stored tables not installed"
import rule_engine
from rule_engine.parser import Parser
used = rule_engine.Rule.parser._parser
del sys.modules[t.MODULE]  # a parser built now computes its tables (no parsetab module anywhere)
fresh = Parser()._parser
assert used.action == fresh.action, "LALR action table differs from the grammar's"
# states without a goto are left out of stored tables (as in the parsetab.py ply writes)
assert used.goto == {k: v for k, v in fresh.goto.items() if v}, "LALR goto table differs from the grammar's"
assert [str(p) for p in used.productions] == [str(p) for p in fresh.productions]
rule = rule_engine.Rule('code == 2 and name =~ "^cuda" and x in [1, 2]')
assert rule.matches({"code": 2, "name": "cudaErrorX", "x": 1})
assert not rule.matches({"code": 2, "name": "hipErrorX", "x": 1})
print("ok")
"""

BAD_FILE = r"""
import sys
from pathlib import Path
from diagnose import rule_engine_tables as t
p = Path(sys.argv[1])
p.write_text('{"tabversion": "0.0"}')
assert not t.install(p)
p.write_text("not json")
assert not t.install(p)
assert not t.install(p.parent / "missing.json")
assert t.MODULE not in sys.modules
import rule_engine
assert rule_engine.Rule("a > 1").matches({"a": 2})
print("ok")
"""


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )


def test_stored_tables_are_the_installed_grammars() -> None:
    out = _child(CHECK)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert out.stderr == ""  # ply warns on stderr when it cannot use stored tables


def test_unusable_tables_leave_rule_engine_to_compute_its_own(tmp_path: Path) -> None:
    out = _child(BAD_FILE, str(tmp_path / "tables.json"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
