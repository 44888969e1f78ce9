"""What `kdiag classify` reads: logs, directories, stdin, JSON Lines, YAML case files, harness results.

Every input becomes an :class:`InputRecord`.  Nothing here raises for a bad record: a
record that cannot be read (binary junk, empty, invalid JSON) comes back with
``error`` set, so the batch goes on and the report says what was wrong and where.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: files above this are read as head + tail only (the collectors bound text further)
READ_LIMIT = 64 << 20
#: split-field JSONL records are joined into one log in this order, each under a header line
SPLIT_FIELDS = ("compile_log", "stdout", "stderr", "sanitizer_log", "log")
TEXT_SUFFIXES = {".log", ".txt", ".out", ".err", ""}
LABEL_KEYS = ("category", "failure_mode", "framework", "source")


@dataclass(frozen=True)
class InputRecord:
    id: str
    text: str = ""
    origin: str = ""
    exit_code: int | None = None
    signal: str | None = None
    timed_out: bool = False
    env: Mapping[str, Any] | None = None  # an environment snapshot (kdiag env --format json)
    passed: bool = False  # the harness that wrote it says this one passed
    error: str | None = None
    warnings: tuple[str, ...] = ()
    label: dict[str, Any] = field(default_factory=dict)


def looks_binary(data: bytes) -> bool:
    """NUL bytes or mostly control characters: not a log."""
    sample = data[:8192]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 27, 12, 8))
    return control / len(sample) > 0.1


def decode(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n")


def _read_bytes(path: Path) -> tuple[bytes, bool]:
    size = path.stat().st_size
    with path.open("rb") as fh:
        if size <= READ_LIMIT:
            return fh.read(), False
        half = READ_LIMIT // 2
        head = fh.read(half)
        fh.seek(size - half)
        return head + b"\n[kdiag: middle of file skipped]\n" + fh.read(), True


def text_record(rid: str, data: bytes, origin: str, *, truncated: bool = False) -> InputRecord:
    if not data.strip():
        return InputRecord(id=rid, origin=origin, error="empty input: nothing to classify")
    if looks_binary(data):
        return InputRecord(
            id=rid,
            origin=origin,
            error=f"binary data, not a text log ({len(data)} bytes; NUL or control bytes in the first 8 KiB)",
        )
    warnings = (f"input is {len(data):,} bytes; only its head and tail were read",) if truncated else ()
    return InputRecord(id=rid, text=decode(data), origin=origin, warnings=warnings)


def _int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def record_from_mapping(obj: Any, *, default_id: str, origin: str) -> InputRecord:
    """One JSON object: ``{"id", "log"}`` or split fields (stdout, stderr, exit_code, compile_log,
    sanitizer_log, env)."""
    if not isinstance(obj, dict):
        return InputRecord(id=default_id, origin=origin, error=f"expected a JSON object, got {type(obj).__name__}")
    rid = str(obj.get("id", default_id))
    parts = []
    present = [k for k in SPLIT_FIELDS if isinstance(obj.get(k), str) and obj.get(k)]
    bad = [k for k in SPLIT_FIELDS if k in obj and obj[k] is not None and not isinstance(obj[k], str)]
    if bad:
        return InputRecord(id=rid, origin=origin, error=f"field(s) {', '.join(bad)} must be strings")
    if present == ["log"]:
        parts.append(obj["log"])
    else:
        for k in present:
            parts.append(f"--- {k} ---\n{obj[k].rstrip()}\n")
    text = "\n".join(parts) if len(parts) > 1 else (parts[0] if parts else "")
    env = obj.get("env") if isinstance(obj.get("env"), dict) else None
    label = {k: obj[k] for k in LABEL_KEYS if isinstance(obj.get(k), str)}
    exit_code = _int(obj.get("exit_code", obj.get("returncode")))
    sig = obj.get("signal") if isinstance(obj.get("signal"), str) else None
    timed_out = bool(obj.get("timed_out", False))
    if not text.strip() and exit_code is None and sig is None and not timed_out and env is None:
        return InputRecord(id=rid, origin=origin, error="record has no log, output, exit status or environment")
    if "\x00" in text[:8192]:
        return InputRecord(id=rid, origin=origin, error="binary data in the record's log fields")
    return InputRecord(
        id=rid,
        text=text,
        origin=origin,
        exit_code=exit_code,
        signal=sig,
        timed_out=timed_out,
        env=env,
        label=label,
    )


def read_jsonl(lines: Iterator[bytes], *, name: str) -> Iterator[InputRecord]:
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        origin = f"{name}:{n}"
        try:
            obj = json.loads(raw.decode("utf-8", errors="strict"))
        except UnicodeDecodeError as exc:
            yield InputRecord(id=f"{Path(name).stem}:{n}", origin=origin, error=f"line {n}: not UTF-8 ({exc.reason})")
            continue
        except json.JSONDecodeError as exc:
            yield InputRecord(
                id=f"{Path(name).stem}:{n}",
                origin=origin,
                error=f"line {n}, column {exc.colno}: invalid JSON: {exc.msg}",
            )
            continue
        yield record_from_mapping(obj, default_id=f"{Path(name).stem}:{n}", origin=origin)


def read_kernelbench(data: Any, *, name: str) -> Iterator[InputRecord] | None:
    """KernelBench eval_results.json: {problem_id: [ {sample_id, compiled, correctness, metadata, ...} ]}."""
    if not isinstance(data, dict) or not data:
        return None

    def samples(v: Any) -> list[dict] | None:
        if isinstance(v, list) and all(isinstance(s, dict) for s in v):
            return v
        if isinstance(v, dict) and "compiled" in v:
            return [v]
        return None

    if not all(samples(v) is not None and any("compiled" in s for s in samples(v) or []) for v in data.values()):
        return None

    def gen() -> Iterator[InputRecord]:
        for problem, value in data.items():
            for s in samples(value) or []:
                sid = s.get("sample_id", 0)
                rid = f"problem_{problem}/sample_{sid}"
                meta = s.get("metadata") or {}
                passed = bool(s.get("compiled")) and bool(s.get("correctness"))
                lines = [f"{k}: {v}" for k, v in meta.items()] if isinstance(meta, dict) else [str(meta)]
                if not s.get("compiled") and not lines:
                    lines.append("compiled: False")
                yield InputRecord(
                    id=rid,
                    text="\n".join(lines) + "\n",
                    origin=f"{name}[{problem}][{sid}]",
                    passed=passed,
                )

    return gen()


def read_structured(path: Path, data: bytes, name: str) -> Iterator[InputRecord]:
    """A .json (KernelBench results, a list of records, one record) or .yaml case list."""
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            obj = yaml.safe_load(decode(data))
        else:
            obj = json.loads(decode(data))
    except Exception as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        line = (line + 1) if line is not None else getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        yield InputRecord(id=path.stem, origin=name, error=f"cannot parse {path.suffix[1:]}{where}: {exc}")
        return
    kb = read_kernelbench(obj, name=name)
    if kb is not None:
        yield from kb
        return
    if isinstance(obj, dict) and isinstance(obj.get("reports"), list):
        obj = obj["reports"]
    if isinstance(obj, list):
        for i, item in enumerate(obj):
            yield record_from_mapping(item, default_id=f"{path.stem}[{i}]", origin=f"{name}[{i}]")
        return
    if isinstance(obj, dict):
        yield record_from_mapping(obj, default_id=path.stem, origin=name)
        return
    yield InputRecord(id=path.stem, origin=name, error=f"unsupported {path.suffix} content: {type(obj).__name__}")


def read_path(path: Path, *, base: Path | None = None) -> Iterator[InputRecord]:
    name = str(path.relative_to(base)) if base and path.is_relative_to(base) else str(path)
    try:
        data, truncated = _read_bytes(path)
    except OSError as exc:
        yield InputRecord(id=path.name, origin=name, error=f"cannot read: {exc.strerror or exc}")
        return
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        yield from read_jsonl(iter(data.splitlines()), name=name)
    elif suffix in (".json", ".yaml", ".yml"):
        yield from read_structured(path, data, name)
    else:
        rid = name if base else path.name
        yield text_record(rid, data, name, truncated=truncated)


def read_stdin(stream: Any = None) -> Iterator[InputRecord]:
    stream = stream if stream is not None else sys.stdin.buffer
    data = stream.read()
    first = data.lstrip()[:1]
    if first == b"{" and all(not line.strip() or line.strip().startswith(b"{") for line in data.splitlines()[:50]):
        yield from read_jsonl(iter(data.splitlines()), name="<stdin>")
    else:
        yield text_record("stdin", data, "<stdin>")


def read_inputs(paths: list[str], *, stdin: Any = None) -> Iterator[InputRecord]:
    """Every record from every path (``-`` is stdin; directories are walked, sorted)."""
    for p in paths:
        if p == "-":
            yield from read_stdin(stdin)
            continue
        path = Path(p)
        if path.is_dir():
            files = sorted(
                f
                for f in path.rglob("*")
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(path).parts)
            )
            if not files:
                yield InputRecord(id=p, origin=p, error="directory holds no files")
            for f in files:
                yield from read_path(f, base=path)
        elif path.exists():
            yield from read_path(path)
        else:
            yield InputRecord(id=p, origin=p, error=f"no such file or directory: {p}")


def count_hint(paths: list[str]) -> int | None:
    """A cheap total for the progress bar (files in the paths; None when unknown)."""
    total = 0
    for p in paths:
        if p == "-":
            return None
        path = Path(p)
        if path.is_dir():
            total += sum(len(files) for _, _, files in os.walk(path))
        elif path.suffix in (".jsonl", ".ndjson") and path.exists() and path.stat().st_size < (256 << 20):
            with path.open("rb") as fh:
                total += sum(1 for line in fh if line.strip())
        else:
            total += 1
    return total
