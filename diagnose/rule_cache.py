"""The bundled rule base, kept on disk between runs, keyed by the content it was loaded from.

Loading the bundled rule base reads and validates every rule file and the message catalogue and
compiles their patterns: most of the start-up of a ``kdiag classify`` of one log.  What it loads
depends only on files: the rule files, the catalogue and calibration data (``diagnose/data/``) and the
code that reads them.  So the loaded rule base and catalogue are pickled once, under a key that is a
hash of the *content* of all of those files (and the Python and PyYAML versions), and a later load
whose files hash the same reads the pickle instead.  Any change to a rule, a catalogue file, the
calibration or the loader's code gives another key: the rule base is loaded afresh and stored again.
Nothing else keys it — not a file's time or size, not the kdiag version.

Where: ``$KDIAG_CACHE_DIR`` (set and empty: no cache), else ``$XDG_CACHE_HOME/kdiag``, else
``~/.cache/kdiag``.  Only a rule base that loaded without a problem is stored.  A cache that cannot be
read or written, is corrupt, or holds anything but a rule base is passed over in silence: the rule
base is loaded from its files as if there were no cache.  The unpickler only builds kdiag's and
rule-engine's own classes and the few standard ones a rule base holds.

What is not pickled but rebuilt on reading: a rule-engine expression is parsed again from its text
(rule-engine's own pickling), a rule's pre-check is derived again from it (:mod:`diagnose.prefilter`:
closures), and the catalogue's literal automaton is built again from its anchors.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

#: bumped when what is stored changes shape
FORMAT = "kdiag-rule-cache-1"
PACKAGE = Path(__file__).resolve().parent
#: the code a loaded rule base depends on: every module of the package's top level and of its collectors
#: (more than the loader needs, so that no module it reads is left out), and every data file
_CODE_DIRS = (PACKAGE, PACKAGE / "collectors")
_DATA_DIR = PACKAGE / "data"


def cache_dir() -> Path | None:
    """Where the rule base is kept, or None when ``$KDIAG_CACHE_DIR`` is set and empty (no cache)."""
    env = os.environ.get("KDIAG_CACHE_DIR")
    if env is not None:
        return Path(env) if env.strip() else None
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "kdiag"


def content_key(rules_root: Path) -> str:
    """A hash of everything the loaded rule base is made from: the files under ``rules_root``, the
    package's data files and code (each by its path and bytes), the Python and PyYAML versions and
    the rules folder's path (the rule base records it)."""
    import yaml

    h = hashlib.blake2b(digest_size=20)
    for part in (FORMAT, sys.version, yaml.__version__, str(rules_root)):
        h.update(part.encode() + b"\0")
    files: list[str] = []
    for d in _CODE_DIRS:
        files += sorted(str(d / f) for f in os.listdir(d) if f.endswith(".py"))
    for root in (_DATA_DIR, rules_root):
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(n for n in dirnames if n != "__pycache__")
            files += [os.path.join(dirpath, f) for f in sorted(filenames)]
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        h.update(path.encode() + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _file(directory: Path, key: str) -> Path:
    return directory / f"rules-{key}.pickle"


# --- writing ------------------------------------------------------------------------------------


class _Pickler(pickle.Pickler):
    """rule-engine's context (one for every expression; it holds a closure) is stored as a reference."""

    def __init__(self, fh: Any, context: Any) -> None:
        super().__init__(fh, protocol=pickle.HIGHEST_PROTOCOL)
        self._context = context

    def persistent_id(self, obj: Any) -> Any:
        return "rule-engine-context" if obj is self._context else None


def store(key: str, ruleset: Any, catalogue: Any) -> bool:
    """Keep ``ruleset`` and ``catalogue`` under ``key``; whether it was written (never raises)."""
    directory = cache_dir()
    if directory is None:
        return False
    try:
        from diagnose.ruleexpr import _context

        # the pre-checks are closures: stored without, derived again on reading
        rules = tuple(dataclasses.replace(r, precheck=None) if r.precheck is not None else r for r in ruleset.rules)
        buf = io.BytesIO()
        _Pickler(buf, _context()).dump((FORMAT, key, dataclasses.replace(ruleset, rules=rules), catalogue))
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".rules-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(buf.getvalue())
            os.replace(tmp, _file(directory, key))  # atomic: a reader sees the old file or the whole new one
        except BaseException:
            os.unlink(tmp)
            raise
        for old in directory.glob("rules-*.pickle"):  # the rule base of older content is not needed again
            if old.name != _file(directory, key).name:
                old.unlink(missing_ok=True)
    except Exception:
        return False
    return True


# --- reading ------------------------------------------------------------------------------------

#: what the unpickler may build besides kdiag's own classes (``diagnose.*``) and rule-engine's
_ALLOWED = {
    ("copyreg", "_reconstructor"),
    ("re", "_compile"),
    ("builtins", "frozenset"),
    ("builtins", "set"),
    ("builtins", "object"),
}


class _Unpickler(pickle.Unpickler):
    def __init__(self, fh: Any, context: Any) -> None:
        super().__init__(fh)
        self._context = context

    def persistent_load(self, pid: Any) -> Any:
        if pid != "rule-engine-context":
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self._context

    def find_class(self, module: str, name: str) -> Any:
        ours = module == "diagnose" or module.startswith(("diagnose.", "rule_engine."))
        if not ours and (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"not part of a rule base: {module}.{name}")
        return super().find_class(module, name)


def read(key: str) -> tuple[Any, Any] | None:
    """The rule set and catalogue kept under ``key``, or None (none kept, unreadable, another content)."""
    directory = cache_dir()
    if directory is None:
        return None
    try:
        data = _file(directory, key).read_bytes()
    except OSError:
        return None
    try:
        from diagnose.prefilter import compile_precheck
        from diagnose.ruleexpr import _context

        tag, stored_key, ruleset, catalogue = _Unpickler(io.BytesIO(data), _context()).load()
        if tag != FORMAT or stored_key != key:
            return None
        rules = tuple(_with_precheck(r, compile_precheck) for r in ruleset.rules)
        return dataclasses.replace(ruleset, rules=rules), catalogue
    except Exception:  # corrupt or of another shape: loaded from the files instead
        return None


def _with_precheck(rule: Any, compile_precheck: Any) -> Any:
    statement = getattr(rule.compiled, "statement", None)  # a rule-engine expression (not a family's condition)
    if statement is None:
        return rule
    check = compile_precheck(statement)
    return rule if check is None else dataclasses.replace(rule, precheck=check)
