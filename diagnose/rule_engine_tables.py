"""rule-engine's parser tables, read from diagnose/data/rule_engine_tables.json instead of computed.

Importing rule-engine builds its expression parser with ply, which computes the grammar's LALR
tables each time (about a quarter of a second of every start).  ply first looks for stored tables
in a module ``rule_engine.parser.parsetab`` and uses them only when their signature is the
grammar's; :func:`install` provides that module from the JSON file that
``scripts/gen-rule-engine-tables`` wrote for the installed rule-engine.  A grammar that changed
(another rule-engine version), another ply table format, a missing or unreadable file: ply computes
the tables as before.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

TABLES = Path(__file__).resolve().parent / "data" / "rule_engine_tables.json"
MODULE = "rule_engine.parser.parsetab"  # where ply looks (its ``tabmodule`` in the parser's package)


def _module(data: dict[str, Any]) -> types.ModuleType:
    """The module ply's ``LRTable.read_table`` reads (the layout of the parsetab.py ply writes)."""
    mod = types.ModuleType(MODULE, "rule-engine's parser tables (diagnose/data/rule_engine_tables.json)")
    action: dict[int, dict[str, int]] = {}
    for symbol, (states, values) in data["action_items"].items():
        for state, value in zip(states, values, strict=True):
            action.setdefault(state, {})[symbol] = value
    goto: dict[int, dict[str, int]] = {}
    for symbol, (states, values) in data["goto_items"].items():
        for state, value in zip(states, values, strict=True):
            goto.setdefault(state, {})[symbol] = value
    mod._tabversion = str(data["tabversion"])  # type: ignore[attr-defined]
    mod._lr_method = str(data["method"])  # type: ignore[attr-defined]
    mod._lr_signature = str(data["signature"])  # type: ignore[attr-defined]
    mod._lr_action = action  # type: ignore[attr-defined]
    mod._lr_goto = goto  # type: ignore[attr-defined]
    mod._lr_productions = [tuple(p) for p in data["productions"]]  # type: ignore[attr-defined]
    return mod


_TABVERSION = re.compile(r"^__tabversion__\s*=\s*['\"]([^'\"]+)['\"]", re.M)


def _ply_tabversion() -> str | None:
    """The table format of the ply that rule-engine vendors, read from its source (importing it would
    import rule-engine, which builds the tables)."""
    spec = importlib.util.find_spec("rule_engine")
    if spec is None or not spec.origin:
        return None
    yacc = Path(spec.origin).parent / "_vendor" / "ply" / "yacc.py"
    m = _TABVERSION.search(yacc.read_text(encoding="utf-8", errors="replace"))
    return m.group(1) if m else None


def install(path: Path = TABLES) -> bool:
    """Provide the stored tables before rule-engine is first imported; whether they were provided."""
    if "rule_engine" in sys.modules or MODULE in sys.modules:
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        # tables of another ply table format would make ply warn on stderr: only the same format is
        # offered (ply itself then checks the grammar's signature)
        if data["tabversion"] != _ply_tabversion():
            return False
        mod = _module(data)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    sys.modules[MODULE] = mod
    return True
