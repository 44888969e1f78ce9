"""The Evidence record: everything a diagnosis may rest on, and the only thing rules see.

One frozen dataclass with one optional :mod:`~diagnose.facts` instance per source.
It round-trips through JSON (:meth:`Evidence.to_dict` / :meth:`Evidence.from_dict`)
and carries a schema version so stored evidence can be read back later.

The rule-engine context is *derived* from the facts' annotations
(:func:`rule_types`), so a rule naming an unknown symbol, or comparing a string
with a number, fails when the rule is built, not when it first meets a record.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from diagnose import facts as F

SCHEMA_VERSION = 2

#: fields a newer schema dropped, by the schema that dropped them: an older record still reads, without
#: them (schema 2: the run's copies of numerics facts; the numerics source owns them)
_DROPPED: dict[int, dict[str, frozenset[str]]] = {
    2: {"run": frozenset({"nan_outputs", "inf_outputs", "max_ulp", "mismatch_pattern", "nondeterministic"})},
}

#: source key → facts type.  The key prefixes every rule symbol of that source.
SOURCES: dict[str, type[F.Facts]] = {
    "log": F.LogFacts,
    "py": F.PyFacts,
    "cuda": F.CudaFacts,
    "oom": F.OomFacts,
    "triton": F.TritonFacts,
    "compiler": F.CompilerFacts,
    "sanitizer": F.SanitizerFacts,
    "env": F.EnvFacts,
    "exit": F.ExitFacts,
    "numerics": F.NumericsFacts,
    "gpu": F.GpuFacts,
    "run": F.RunFacts,
    "concept": F.ConceptFacts,
    "kb": F.KbFacts,
    "location": F.LocationFacts,
}

#: record types nested in facts, by name, for from_dict
_RECORD_TYPES: dict[str, type] = {
    "Frame": F.Frame,
    "Diagnostic": F.Diagnostic,
    "SanitizerRecord": F.SanitizerRecord,
}


@dataclass(frozen=True)
class Evidence:
    id: str | None = None
    origin: str = "log"  # log (classify) | run (kdiag run)
    log: F.LogFacts = dataclasses.field(default_factory=F.LogFacts)
    py: F.PyFacts | None = None
    cuda: F.CudaFacts | None = None
    oom: F.OomFacts | None = None
    triton: F.TritonFacts | None = None
    compiler: F.CompilerFacts | None = None
    sanitizer: F.SanitizerFacts | None = None
    env: F.EnvFacts | None = None
    exit: F.ExitFacts | None = None
    numerics: F.NumericsFacts | None = None
    gpu: F.GpuFacts | None = None
    run: F.RunFacts | None = None
    concept: F.ConceptFacts | None = None
    kb: F.KbFacts | None = None
    location: F.LocationFacts | None = None
    schema: int = SCHEMA_VERSION

    # -- access -------------------------------------------------------------------

    def present(self) -> frozenset[str]:
        """The sources that said something."""
        return frozenset(k for k in SOURCES if getattr(self, k) is not None)

    def facts(self) -> Iterator[tuple[str, F.Facts]]:
        for key in SOURCES:
            value = getattr(self, key)
            if value is not None:
                yield key, value

    def context(self) -> dict[str, Any]:
        """The flat mapping rules are evaluated against (every symbol, absent ones null/empty)."""
        out: dict[str, Any] = dict(_empty_context())
        present = []
        for key in SOURCES:
            value = getattr(self, key)
            if value is not None:
                present.append(key)
                kind: Any = type(value)
                symbols, read = _reader(key, kind)
                out.update(zip(symbols, read(value), strict=True))
        out["sources"] = tuple(sorted(present))
        return out

    # -- JSON ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": self.schema, "id": self.id, "origin": self.origin}
        for key, value in self.facts():
            out[key] = _to_jsonable(value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        schema = data.get("schema", SCHEMA_VERSION)
        if not isinstance(schema, int) or not 1 <= schema <= SCHEMA_VERSION:
            raise ValueError(f"evidence schema {schema} is not supported (this kdiag reads 1 to {SCHEMA_VERSION})")
        data = _upgrade(data, schema)
        unknown = set(data) - set(SOURCES) - {"schema", "id", "origin"}
        if unknown:
            raise ValueError(f"unknown evidence sources: {', '.join(sorted(unknown))}")
        kwargs: dict[str, Any] = {"id": data.get("id"), "origin": data.get("origin", "log")}
        for key, typ in SOURCES.items():
            if data.get(key) is not None:
                kwargs[key] = _from_jsonable(typ, data[key])
        return cls(**kwargs)

    def replace(self, **changes: Any) -> Evidence:
        return dataclasses.replace(self, **changes)


def _upgrade(data: Mapping[str, Any], schema: int) -> Mapping[str, Any]:
    """An older record in the current schema: the fields later schemas dropped are left out."""
    out = dict(data)
    for version in range(schema + 1, SCHEMA_VERSION + 1):
        for source, fields in _DROPPED.get(version, {}).items():
            if isinstance(out.get(source), Mapping):
                out[source] = {k: v for k, v in out[source].items() if k not in fields}
    return out


# --- the rule-engine view ----------------------------------------------------------


def _is_record_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _unwrap_optional(tp: Any) -> Any:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp


def _rule_fields(cls: type) -> tuple[str, ...]:
    """Fields of a facts type that rules may read: scalars and tuples of scalars."""
    if cls in _FIELDS:
        return _FIELDS[cls]
    names = []
    for f in dataclasses.fields(cls):
        tp = _unwrap_optional(_hints(cls)[f.name])
        if typing.get_origin(tp) is tuple:
            (item, *_rest) = typing.get_args(tp)
            if _is_record_type(item):
                continue
        names.append(f.name)
    _FIELDS[cls] = tuple(names)
    return _FIELDS[cls]


def _rule_type(tp: Any) -> Any:
    from rule_engine import DataType

    tp = _unwrap_optional(tp)
    if typing.get_origin(tp) is tuple:
        return DataType.ARRAY(_rule_type(typing.get_args(tp)[0]))
    scalar = {str: DataType.STRING, bool: DataType.BOOLEAN, int: DataType.FLOAT, float: DataType.FLOAT}
    return scalar[tp]


@functools.cache
def rule_types() -> dict[str, Any]:
    """symbol → rule-engine DataType, for every symbol a rule may use."""
    from diagnose import rule_engine_tables

    rule_engine_tables.install()  # before rule-engine's first import: its parser tables read, not computed
    from rule_engine import DataType

    out: dict[str, Any] = {"sources": DataType.ARRAY(DataType.STRING)}
    for key, cls in SOURCES.items():
        for name in _rule_fields(cls):
            out[f"{key}_{name}"] = _rule_type(_hints(cls)[name])
    return out


@functools.cache
def _reader(key: str, cls: Any) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    """The rule symbols of a source's facts and a getter of their values, in the same order."""
    names = _rule_fields(cls)
    get = operator.attrgetter(*names) if names else (lambda value: ())
    read = get if len(names) != 1 else (lambda value: (get(value),))
    return tuple(f"{key}_{name}" for name in names), read


@functools.cache
def _empty_context() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, cls in SOURCES.items():
        blank = cls()
        for name in _rule_fields(cls):
            out[f"{key}_{name}"] = getattr(blank, name)
    return out


@functools.cache
def fact_symbols() -> dict[str, str]:
    """Each symbol of a source's facts -> that source (``cuda_error`` -> ``cuda``); without rule-engine."""
    return {f"{key}_{name}": key for key, cls in SOURCES.items() for name in _rule_fields(cls)}


def symbol_source(symbol: str) -> str | None:
    """The source a rule symbol belongs to: ``cuda_error`` → ``cuda``."""
    return fact_symbols().get(symbol)


# --- JSON helpers ------------------------------------------------------------------


def _to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_to_jsonable(v) for v in value]
    return value


def _from_jsonable(cls: type, data: Mapping[str, Any]) -> Any:
    if not isinstance(data, Mapping):
        raise ValueError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    hints = _hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown fields {', '.join(sorted(unknown))}")
    kwargs = {}
    for name, raw in data.items():
        tp = _unwrap_optional(hints[name])
        if typing.get_origin(tp) is tuple:
            item = typing.get_args(tp)[0]
            if _is_record_type(item):
                kwargs[name] = tuple(_from_jsonable(item, r) for r in raw)
            else:
                kwargs[name] = tuple(raw)
        else:
            kwargs[name] = raw
    return cls(**kwargs)
