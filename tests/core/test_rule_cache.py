"""The bundled rule base kept between runs (diagnose.rule_cache): what is read back is what loads from
the files, it is keyed by content alone, and a cache that is off, corrupt or foreign is passed over."""

from __future__ import annotations

import io
import os
import pickle
import shutil
from pathlib import Path

import pytest
import rule_engine

from diagnose import catalogue as catalogue_module
from diagnose import rule_cache
from diagnose.catalogue import load_catalogue
from diagnose.classify import classify_record
from diagnose.collectors import collect
from diagnose.inputs import InputRecord
from diagnose.matcher import Matcher
from diagnose.ruleexpr import LazyExpression, LazyPrecheck
from diagnose.rules import DEFAULT_RULES_DIR, _load, load_rules

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "examples" / "logs").glob("*.log"))


@pytest.fixture(scope="module")
def fresh():
    """The bundled rule base and catalogue loaded from their files, no cache involved."""
    rules = _load(DEFAULT_RULES_DIR, include_deprecated=False, extra=(), catalogue=None, calibrate=None)
    return rules, load_catalogue()


@pytest.fixture(scope="module")
def stored(fresh, tmp_path_factory):
    """The cache folder the fresh rule base is stored in, and its key."""
    directory = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KDIAG_CACHE_DIR", str(directory))
        key = rule_cache.content_key(DEFAULT_RULES_DIR)
        assert rule_cache.store(key, *fresh)
    return directory, key


def _read(stored):
    directory, key = stored
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KDIAG_CACHE_DIR", str(directory))
        got = rule_cache.read(key)
    assert got is not None
    return got


@pytest.fixture(scope="module")
def kept(stored):
    """The fresh rule base and catalogue, stored and read back."""
    return _read(stored)


def test_read_back_equals_the_loaded_rule_base(fresh, stored):
    rules, _ = fresh
    got, _ = _read(stored)  # a reading of its own: nothing in it tried yet
    assert got == rules  # every field but the compiled expression and its pre-check
    assert got.root == rules.root
    for a, b in zip(got.rules, rules.rules, strict=True):
        assert str(a.compiled) == str(b.compiled)  # rule-engine's text, or the family's condition
        assert (a.precheck is None) == (b.precheck is None)  # derived again from the expression
        if isinstance(a.compiled, LazyExpression):
            assert a.compiled._rule is None  # not parsed until tried
            assert b.precheck is None or isinstance(a.precheck, LazyPrecheck)
            assert isinstance(b.compiled, rule_engine.Rule)
        else:
            assert a.compiled == b.compiled  # a message family's condition


def test_read_back_catalogue_scans_like_the_loaded_one(fresh, kept):
    _, cat = fresh
    _, got = kept
    assert got.families == cat.families  # each pattern equal: its text and flags
    # one object per pattern, as loaded: the automaton's entries are the families' own patterns
    ids = {id(rx) for fam in got.families for rx in fam.patterns}
    assert {id(rx) for entries in got._entries for _, rx in entries} <= ids
    assert {id(rx) for _, rx in got._always} <= ids
    texts = [m.sample or m.text for f in cat.families for m in f.messages] + [p.read_text() for p in LOGS]
    for text in texts:
        assert [(h.family.id, h.line, h.groups) for h in got.scan(text)] == [
            (h.family.id, h.line, h.groups) for h in cat.scan(text)
        ]


def test_read_back_rule_base_classifies_like_the_loaded_one(fresh, kept):
    assert LOGS
    a, b = Matcher(fresh[0]), Matcher(kept[0])
    for path in LOGS:
        rec = InputRecord(id=path.name, text=path.read_text())
        assert classify_record(rec, b).to_dict() == classify_record(rec, a).to_dict()


def test_each_expression_and_precheck_answers_as_loaded(fresh, kept):
    contexts = [collect(p.read_text()).context() for p in LOGS]
    for a, b in zip(kept[0].rules, fresh[0].rules, strict=True):
        for ctx in contexts:
            if b.precheck is not None:
                assert bool(a.precheck(ctx)) == bool(b.precheck(ctx)), a.id
            assert a.compiled.matches(ctx) == b.compiled.matches(ctx), a.id
        if b.precheck is not None:  # derived on the first call, then the rule's own
            assert not isinstance(a.precheck, LazyPrecheck) and a.precheck is not None


def _copy(tmp_path: Path) -> Path:
    rules = tmp_path / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, rules)
    return rules


def test_key_is_content_not_time(tmp_path):
    rules = _copy(tmp_path)
    key = rule_cache.content_key(rules)
    some = next(rules.rglob("*.yaml"))
    os.utime(some, (1, 1))
    assert rule_cache.content_key(rules) == key  # touched: the same content
    some.write_text(some.read_text() + "\n# one more line\n")
    assert rule_cache.content_key(rules) != key  # edited: another key
    (rules / "new.yaml").write_text("id: x\n")
    assert rule_cache.content_key(rules) != key


def test_load_rules_stores_then_reads_the_same(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("KDIAG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(catalogue_module, "_DEFAULT", [])  # as a new process: no catalogue loaded yet
    first = load_rules()
    stored = list(tmp_path.glob("rules-*.pickle"))
    assert len(stored) == 1
    assert rule_cache.read(stored[0].name[len("rules-") : -len(".pickle")]) is not None
    second = load_rules()
    assert first == second == fresh[0]


def test_a_rule_base_whose_files_changed_while_it_loaded_is_not_kept(tmp_path, monkeypatch):
    """The key is taken before the load; files edited meanwhile (another key after it) or a catalogue this
    process read before the key was taken (it may predate the files) leave nothing kept under the key."""
    monkeypatch.setenv("KDIAG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(catalogue_module, "_DEFAULT", [])
    keys = iter(("before-the-edit", "after-the-edit"))
    monkeypatch.setattr(rule_cache, "content_key", lambda root: next(keys))
    load_rules()
    assert not list(tmp_path.glob("rules-*.pickle"))
    monkeypatch.setattr(rule_cache, "content_key", lambda root: "unchanged")
    load_rules()  # the catalogue is loaded now, before this call took its key
    assert not list(tmp_path.glob("rules-*.pickle"))
    monkeypatch.setattr(catalogue_module, "_DEFAULT", [])
    load_rules()
    assert [p.name for p in tmp_path.glob("rules-*.pickle")] == ["rules-unchanged.pickle"]


def test_no_cache_when_the_variable_is_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("KDIAG_CACHE_DIR", "")
    assert rule_cache.cache_dir() is None
    assert not rule_cache.store("k", None, None)
    assert rule_cache.read("k") is None


def test_a_corrupt_or_foreign_file_is_passed_over(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("KDIAG_CACHE_DIR", str(tmp_path))
    key = rule_cache.content_key(DEFAULT_RULES_DIR)
    path = tmp_path / f"rules-{key}.pickle"
    path.write_bytes(b"not a pickle")
    assert rule_cache.read(key) is None
    monkeypatch.setattr(catalogue_module, "_DEFAULT", [])  # as a new process: no catalogue loaded yet
    assert load_rules() == fresh[0]  # loaded from the files, and stored again
    assert rule_cache.read(key) is not None
    # a pickle that would call something else than a rule base's classes is refused before it runs
    buf = io.BytesIO()
    pickle.dump((rule_cache.FORMAT, key, os.getcwd, None), buf)
    path.write_bytes(buf.getvalue())
    assert rule_cache.read(key) is None
    # one kept under another key is not taken for this one
    rule_cache.store("other", *fresh)
    (tmp_path / "rules-other.pickle").rename(path)
    assert rule_cache.read(key) is None


def test_the_last_few_are_kept(tmp_path, monkeypatch, fresh):
    monkeypatch.setenv("KDIAG_CACHE_DIR", str(tmp_path))
    keys = [f"k{i}" for i in range(rule_cache.KEEP + 2)]
    for i, key in enumerate(keys):
        assert rule_cache.store(key, *fresh)
        os.utime(tmp_path / f"rules-{key}.pickle", ns=(i * 10**9, i * 10**9))  # written one after another
    assert sorted(p.name for p in tmp_path.glob("rules-*.pickle")) == sorted(
        f"rules-{k}.pickle" for k in keys[-rule_cache.KEEP :]
    )


def test_an_unwritable_cache_is_no_error(tmp_path, monkeypatch, fresh):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("KDIAG_CACHE_DIR", str(blocker / "sub"))  # a folder under a file cannot be made
    assert not rule_cache.store("k", *fresh)
    assert load_rules() == fresh[0]


def test_where_it_is_kept(tmp_path, monkeypatch):
    monkeypatch.delenv("KDIAG_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert rule_cache.cache_dir() == tmp_path / "kdiag"
    monkeypatch.delenv("XDG_CACHE_HOME")

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert rule_cache.cache_dir() is None  # nowhere to keep it: loaded from the files each time


def test_patterns_are_read_back_uncompiled(fresh, stored):
    """A catalogue pattern read back is compiled the first time it is used, and answers as the one loaded."""
    import re

    from diagnose.lazy_regex import LazyPattern, real

    _, cat = fresh
    _, got = _read(stored)  # a reading of its own: nothing in it used yet
    lazy = [rx for fam in got.families for rx in fam.patterns]
    loaded = [rx for fam in cat.families for rx in fam.patterns]
    assert len(lazy) == len(loaded) > 500
    assert all(isinstance(rx, LazyPattern) and rx._rx is None for rx in lazy)
    for a, b in zip(lazy[:50], loaded[:50], strict=True):
        assert (a.pattern, a.flags) == (b.pattern, b.flags)
        assert a == b and hash(a) == hash(LazyPattern(b.pattern, b.flags))
        assert a._rx is None  # comparing, hashing and its text need no compiling
        assert a.groupindex == b.groupindex  # anything else compiles it
        assert real(a) is a._rx and isinstance(a._rx, re.Pattern)
        assert pickle.loads(pickle.dumps(a)) == b  # it pickles as the pattern it stands for
        for text in [m.sample or m.text for m in next(f for f in cat.families if b in f.patterns).messages]:
            found, want = a.search(text), b.search(text)
            assert (found and found.span()) == (want and want.span())


def test_anchor_tests_from_the_kept_plans_answer_as_from_the_patterns(fresh, kept):
    """The anchor plans kept with the rule base make the tests the patterns' own parse trees make."""
    import re

    from diagnose import regex_anchor

    plans = regex_anchor._PLANS
    assert len(plans) > 500  # read back with the rule base
    texts = [m.sample or m.text for f in fresh[1].families for m in f.messages][:300] + [p.read_text() for p in LOGS]
    with_test = 0
    for (pattern, flags), plan in sorted(plans.items(), key=lambda kv: kv[0]):
        rx = re.compile(pattern, flags)
        mine, theirs = regex_anchor.anchor_test(rx), regex_anchor._read(rx)
        assert (mine is None) == (theirs is None) == (plan is None), pattern
        if mine is None or theirs is None:
            continue
        with_test += 1
        for text in texts:
            assert mine(text) == theirs(text), (pattern, text[:200])
    assert with_test > 500


def test_patterns_are_built_from_the_kept_code(fresh, stored):
    """Every catalogue pattern and rule text pattern has its code kept with the rule base, and the pattern
    built from it is ``re.compile``'s own (same text, flags and code)."""
    import re

    from diagnose import regex_code

    rules, cat = fresh
    _read(stored)  # reading the rule base back remembers its codes
    catalogue = {(rx.pattern, rx.flags) for fam in cat.families for rx in fam.patterns}
    texts = {text for rule in rules.rules for text in rule.text_patterns}
    assert len(catalogue) > 500 and len(texts) > 100
    for pattern, flags in sorted(catalogue):
        built = regex_code.from_code(pattern, flags)
        assert built is not None and built == re.compile(pattern, flags), pattern
        assert built.groupindex == re.compile(pattern, flags).groupindex
    kept = 0
    for text in sorted(texts):
        built = regex_code.from_code(text)
        try:
            want = re.compile(text)
        except re.error:
            assert built is None
            continue
        assert built is not None and built == want, text
        kept += 1
    assert kept > 100


def test_the_collectors_table_patterns_are_built_from_the_kept_code(stored):
    """The CUDA error-message patterns and the failure-line patterns, built where they are used, from the
    code kept with the rule base: ``re.compile``'s own patterns."""
    import re

    from diagnose import regex_code
    from diagnose.collectors import cuda_errors
    from diagnose.failure_lines import _FLAGS, _PATTERNS

    _read(stored)
    cuda = cuda_errors.tables()
    keys = [(cuda.message_re.pattern, 0), (cuda.long_message_re.pattern, 0), (cuda.tail_re.pattern, re.MULTILINE)]
    keys += [(pattern, _FLAGS) for _, pattern in _PATTERNS]
    assert len(keys) > 50
    for pattern, flags in keys:
        built = regex_code.from_code(pattern, flags)
        assert built is not None and built == re.compile(pattern, flags), pattern[:80]
        assert regex_code.compile_pattern(pattern, flags) == re.compile(pattern, flags)


def test_the_pre_checks_literals_are_read_back(fresh, stored, monkeypatch):
    """The literals of the patterns the rules' pre-checks test are kept with the rule base: read back, they
    are what each pattern's parse tree gives, and deriving the pre-checks parses none of the patterns."""
    import re

    from diagnose import regex_literals
    from diagnose.prefilter import compile_precheck

    monkeypatch.setattr(regex_literals, "_OPTIONS", {})
    rules, _ = _read(stored)
    kept = dict(regex_literals._OPTIONS)
    assert len(kept) > 50 and not any(folded for _, _, folded in kept)
    for (pattern, flags, folded), options in kept.items():
        assert options == regex_literals._literal_options(re.compile(pattern, flags), folded=folded), pattern
    parsed = []
    monkeypatch.setattr(regex_literals, "_literal_options", lambda rx, **k: parsed.append(rx.pattern))
    for rule in rules.rules:
        if isinstance(rule.precheck, LazyPrecheck):
            compile_precheck(rule.compiled.statement)
    assert parsed == []


def test_pre_checks_and_exact_tests_are_built_from_the_kept_plans(fresh, stored, monkeypatch):
    """The pre-check and exact test plans of every expression are kept with the rule base: read back, they are
    the plans its statement gives, and the pre-checks and exact tests built from them answer as those derived
    from the statements, without one expression being parsed."""
    from diagnose import matcher, ruleexpr
    from diagnose.prefilter import compile_precheck, exact_plan, exact_test, kept_plans, precheck_plan

    rules, _ = _read(stored)
    parsed: list[str] = []
    real = ruleexpr.compile_expression
    monkeypatch.setattr(ruleexpr, "compile_expression", lambda text: parsed.append(text) or real(text))
    contexts = [collect(p.read_text()).context() for p in LOGS]
    answered = 0
    for a, b in zip(rules.rules, fresh[0].rules, strict=True):
        if not isinstance(a.compiled, LazyExpression):
            continue
        assert kept_plans(a.compiled.text) == (precheck_plan(b.compiled.statement), exact_plan(b.compiled.statement))
        pre, decide = compile_precheck(b.compiled.statement), exact_test(b.compiled.statement)
        kept_decide = matcher._decider(a.compiled)
        assert (kept_decide is None) == (decide is None), a.id
        for ctx in contexts:
            if pre is not None:
                assert bool(a.precheck(ctx)) == bool(pre(ctx)), a.id
            if decide is not None:
                assert kept_decide(ctx) == decide(ctx), a.id
                answered += 1
    assert answered > 1000
    assert parsed == []


def test_the_unmatched_kinds_patterns_are_kept_as_their_table_compiles_them() -> None:
    """The rule base keeps the code of the unmatched kinds' patterns (diagnose/data/unmatched.yaml) under the
    flags diagnose.unmatched compiles them with, read from the table itself."""
    from diagnose import rule_cache, unmatched

    assert rule_cache.KIND_FLAGS == unmatched.FLAGS
    kept = {rx.pattern for rx in rule_cache._kind_patterns()}
    table = {rx.pattern for kind in unmatched.default_kinds() for rx in kind.lines}
    assert kept == table and len(table) > 20
