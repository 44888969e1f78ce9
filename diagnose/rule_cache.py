"""The bundled rule base, kept on disk between runs, keyed by the content it was loaded from.

Loading the bundled rule base reads and validates every rule file and the message catalogue and
compiles their patterns: most of the start-up of a ``kdiag classify`` of one log.  What it loads
depends only on files: the rule files, the catalogue and calibration data (``diagnose/data/``) and the
code that reads them.  So the loaded rule base and catalogue are pickled once, under a key that is a
hash of the *content* of all of those files (and the Python, PyYAML and rule-engine versions), and a later load
whose files hash the same reads the pickle instead.  Any change to a rule, a catalogue file, the
calibration or the loader's code gives another key: the rule base is loaded afresh and stored again.
Nothing else keys it — not a file's time or size, not the kdiag version.

Where: ``$KDIAG_CACHE_DIR`` (set and empty: no cache), else ``$XDG_CACHE_HOME/kdiag``, else
``~/.cache/kdiag``; the last few rule bases written are kept (several checkouts may share it).  Only a
rule base that loaded without a problem is stored.  A cache that cannot be read or written, is
corrupt, or holds anything but a rule base is passed over in silence: the rule base is loaded from
its files as if there were no cache.  The unpickler takes names only from kdiag's own modules and the few
standard ones a rule base holds.

What is stored differently: a rule's rule-engine expression is stored as its text and read back as a
:class:`diagnose.ruleexpr.LazyExpression`, parsed the first time the rule is tried (a run pays for the
rules it tries; each one parsed when it was stored); a rule's pre-check (closures,
:mod:`diagnose.prefilter`) is derived again from it on its first call; the catalogue's literal
automaton is built again from its anchors, and the anchor tests of its patterns and the rules' from the
plans kept with them (:func:`diagnose.regex_anchor.plans`) or, for a pattern without a plan, its
reading (:func:`diagnose.regex_anchor.readings`: no parse, no compile of the parts its test tries), and a pre-check's
regex tests from the literals kept with them (:func:`diagnose.regex_literals.kept_options`); a compiled regex is read back as a
:class:`diagnose.lazy_regex.LazyPattern`, compiled the first time it is used (a log tries few of them),
from the code ``re``'s compiler made of it, kept with the rule base (:mod:`diagnose.regex_code`).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import importlib.util
import io
import os
import pickle
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

#: bumped when what is stored changes shape
#: whether a rule base read from the cache is moved out of the garbage collector's reach (``gc.freeze``): set by
#: the command line (``kdiag``), which holds the rule base for its whole run; a program importing kdiag keeps its
#: own objects collectable
FREEZE_LOADED = False

FORMAT = "kdiag-rule-cache-6"
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
    if xdg:
        return Path(xdg) / "kdiag"
    try:
        return Path.home() / ".cache" / "kdiag"
    except RuntimeError:  # no home folder to be found: no cache
        return None


def content_key(rules_root: Path) -> str:
    """A hash of everything the loaded rule base is made from: the files under ``rules_root``, the
    package's data files and code (each by its path and bytes), rule-engine's version (its package's
    ``__init__``), the Python and PyYAML versions and the rules folder's path (the rule base records it)."""
    import yaml

    h = hashlib.blake2b(digest_size=20)
    for part in (FORMAT, sys.version, yaml.__version__, str(rules_root)):
        h.update(os.fsencode(part) + b"\0")
    files: list[str] = []
    for d in _CODE_DIRS:
        files += sorted(str(d / f) for f in os.listdir(d) if f.endswith(".py"))
    for root in (_DATA_DIR, rules_root):
        for dirpath, dirnames, filenames in os.walk(root, followlinks=True):  # as the loader's rglob does
            dirnames[:] = sorted(n for n in dirnames if n != "__pycache__")
            files += [os.path.join(dirpath, f) for f in sorted(filenames)]
    engine = importlib.util.find_spec("rule_engine")  # its version (the expressions are parsed by it)
    if engine is not None and engine.origin:
        files.append(engine.origin)
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        h.update(os.fsencode(path) + b"\0" + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def _file(directory: Path, key: str) -> Path:
    return directory / f"rules-{key}.pickle"


# --- writing ------------------------------------------------------------------------------------

#: a rule's ``precheck`` as stored: it had one (a closure), to be derived again from its expression
DERIVED = "derived-from-the-expression"


class _Pickler(pickle.Pickler):
    """A rule-engine expression is stored as its text (read back as a LazyExpression); each object once,
    as pickle does (a regex is stored as its text and flags, and compiled again when read back)."""

    def reducer_override(self, obj: Any) -> Any:
        from diagnose.ruleexpr import LazyExpression

        if isinstance(obj, LazyExpression) or type(obj).__module__.startswith("rule_engine."):
            return LazyExpression, (str(obj.text),)
        return NotImplemented


def store(key: str, ruleset: Any, catalogue: Any) -> bool:
    """Keep ``ruleset`` and ``catalogue`` under ``key``; whether it was written (never raises)."""
    directory = cache_dir()
    if directory is None:
        return False
    try:
        from diagnose.regex_literals import kept_options

        rules = tuple(dataclasses.replace(r, precheck=DERIVED) if r.precheck is not None else r for r in ruleset.rules)
        buf = io.BytesIO()
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(
            (
                FORMAT,
                key,
                dataclasses.replace(ruleset, rules=rules),
                catalogue,
                *_pattern_tables(ruleset, catalogue),  # (reads the unmatched kinds' literals: before kept_options)
                kept_options(),  # the literals of the patterns the rules' pre-checks test, read at this load
                _expression_plans(ruleset),
            )
        )
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".rules-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(buf.getvalue())
            os.replace(tmp, _file(directory, key))  # atomic: a reader sees the old file or the whole new one
        except BaseException:
            os.unlink(tmp)
            raise
        _evict(directory)
    except Exception:
        return False
    return True


#: how many rule bases are kept (several checkouts or versions of kdiag may share the folder)
KEEP = 4


def _evict(directory: Path) -> None:
    """Remove all but the most recently written ``KEEP`` rule bases (never raises)."""
    kept = []
    for path in directory.glob("rules-*.pickle"):
        try:
            kept.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    for _, path in sorted(kept, reverse=True)[KEEP:]:
        path.unlink(missing_ok=True)


# --- reading ------------------------------------------------------------------------------------

#: what the unpickler may build besides kdiag's own classes (``diagnose.*``)
_ALLOWED = {
    ("copyreg", "_reconstructor"),
    ("re", "_compile"),
    ("builtins", "frozenset"),
    ("builtins", "set"),
    ("builtins", "object"),
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if not (module == "diagnose" or module.startswith("diagnose.")) and (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"not part of a rule base: {module}.{name}")
        if (module, name) == ("re", "_compile"):  # a compiled regex: compiled when first used
            from diagnose.lazy_regex import LazyPattern

            return LazyPattern
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
        from diagnose.ruleexpr import LazyPrecheck

        collecting = gc.isenabled()
        gc.disable()  # many objects, none garbage: the collector's passes would only cost time
        try:
            loaded = _Unpickler(io.BytesIO(data)).load()
            tag, stored_key, ruleset, catalogue, plans, codes, reads, options, expressions = loaded
        finally:
            if FREEZE_LOADED:
                # the rule base lives as long as the process: the collector's later passes leave its objects be (a
                # full pass would walk them all again and find nothing); only for the command line, since a freeze
                # also keeps every other object alive now out of later cycle collections
                gc.freeze()
            if collecting:
                gc.enable()
        if tag != FORMAT or stored_key != key:
            return None
        for rule in ruleset.rules:
            if rule.precheck == DERIVED:  # a rule just built here, not yet seen by anyone
                rule.__dict__["precheck"] = LazyPrecheck(rule)
        _remember_patterns(catalogue)
        from diagnose.regex_anchor import remember_plans, remember_readings

        remember_plans(plans)
        remember_readings(reads)
        from diagnose.regex_literals import remember_options

        remember_options(options)
        from diagnose.prefilter import remember_expression_plans

        remember_expression_plans(expressions)
        from diagnose.regex_code import remember

        remember(codes)
        return ruleset, catalogue
    except Exception:  # corrupt or of another shape: loaded from the files instead
        return None


def _expression_plans(ruleset: Any) -> dict[str, Any]:
    """The pre-check and exact test plans (:func:`diagnose.prefilter.expression_plans`) of the rules' expressions,
    by their text: a rule read back is tried without its expression being parsed where they answer."""
    from diagnose.prefilter import expression_plans

    statements = []
    for rule in ruleset.rules:
        compiled = rule.compiled
        if type(compiled).__module__.startswith("rule_engine."):  # (stored as its text: a LazyExpression)
            statements.append((str(compiled.text), compiled.statement))
    return expression_plans(statements)


def _pattern_tables(
    ruleset: Any, catalogue: Any
) -> tuple[dict[tuple[str, int], Any], dict[tuple[str, int], Any], dict[tuple[str, int], Any]]:
    """The anchor plans (diagnose.regex_anchor) of the catalogue's patterns and the rules' text patterns, their
    compiled code (diagnose.regex_code) and the anchor readings of those without a plan, each by the (text,
    flags) it is looked up with."""
    import re

    from diagnose.regex_anchor import plans, readings
    from diagnose.regex_code import codes
    from diagnose.regex_literals import compiled

    patterns = [rx for fam in catalogue.families for rx in fam.patterns]
    keys = [(rx.pattern, rx.flags) for rx in patterns]  # a catalogue pattern is read back with its flags
    for rule in ruleset.rules:
        for text in rule.text_patterns:
            try:
                patterns.append(compiled(text))
            except re.error:
                continue
            keys.append((text, 0))  # a rule's text pattern: regex_literals.compiled(text)
    kinds = _kind_patterns()
    patterns += kinds
    keys += [(rx.pattern, KIND_FLAGS) for rx in kinds]  # as diagnose.unmatched compiles them
    return plans(patterns), codes(keys + _table_patterns()), readings(patterns)


#: the flags the unmatched kinds' patterns are compiled with (diagnose.unmatched.FLAGS: that module reads the
#: collectors' facts, which the rule base's modules never import)
KIND_FLAGS = re.MULTILINE


def _kind_patterns() -> list[Any]:
    """The patterns of the kinds an unmatched failure is read as (``diagnose/data/unmatched.yaml``: an ``unknown``
    answer's hint), their literals read (regex_literals.literal_options: kept with the options), so that the first
    unmatched log of a run neither parses nor compiles them."""
    import yaml

    from diagnose.regex_literals import literal_options

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    items = yaml.load((_DATA_DIR / "unmatched.yaml").read_text(encoding="utf-8"), Loader=loader)
    out = []
    for item in items if isinstance(items, list) else ():
        for text in (item.get("lines") or ()) if isinstance(item, dict) else ():
            try:
                rx = re.compile(text, KIND_FLAGS)
            except (re.error, TypeError):  # the table's own check says so where it is read
                continue
            literal_options(rx)
            out.append(rx)
    return out


def _table_patterns() -> list[tuple[str, int]]:
    """The patterns the collectors build from the package's data and code (the CUDA error messages, the
    failure-line patterns): each (text, flags) as compiled where it is used."""
    import re

    from diagnose.cuda_error_table import tables
    from diagnose.failure_line_table import _FLAGS, _PATTERNS

    cuda = tables()  # (the flags each one is compiled with there)
    keys = [(cuda.message_re.pattern, 0), (cuda.long_message_re.pattern, 0), (cuda.tail_re.pattern, re.MULTILINE)]
    return keys + [(pattern, _FLAGS) for _, pattern in _PATTERNS]


def _remember_patterns(catalogue: Any) -> None:
    """The catalogue's patterns, as ``regex_literals.compiled`` would have kept them had the catalogue been
    loaded from its files (a finding cites its lines with them)."""
    from diagnose.regex_literals import _COMPILED

    for fam in catalogue.families:  # each pattern of a family is ``compiled(its text)`` (diagnose.catalogue)
        for rx in fam.patterns:
            _COMPILED.setdefault(rx.pattern, rx)
