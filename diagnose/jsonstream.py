"""The items of one large JSON document, one at a time, in bounded memory.

A top-level array gives ``(index, value)``, a top-level object ``(key, value)``; each value is decoded
whole (one record, one KernelBench problem), the document never is.

>>> import io
>>> list(json_items(io.BytesIO(b' [ {"id": 1}, 2 ,"x"] ')))
[(0, {'id': 1}), (1, 2), (2, 'x')]
>>> list(json_items(io.BytesIO(b'{"a": [1], "b": {}}'), chunk=3))
[('a', [1]), ('b', {})]
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

_WS = " \t\r\n"


class JSONStreamError(ValueError):
    """The document is not a JSON array or object, or breaks off."""


class _Buffer:
    def __init__(self, fh: BinaryIO, chunk: int) -> None:
        self.fh, self.chunk = fh, chunk
        self.text, self.pos, self.eof = "", 0, False
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._dec = json.JSONDecoder()

    def fill(self, size: int = 0) -> bool:
        """Read one more chunk (dropping what was consumed); False at the end of the stream."""
        if self.eof:
            return False
        data = self.fh.read(size or self.chunk)
        self.eof = not data
        self.text = self.text[self.pos :] + self._utf8.decode(data, final=self.eof)
        self.pos = 0
        return not self.eof

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.fill():
                return ""

    def value(self) -> Any:
        """Decode one value at the cursor, reading more until it is complete."""
        self.peek()
        size = self.chunk  # doubled on each retry, so a large value costs O(its size) reads, not O(size²)
        while True:
            try:
                value, end = self._dec.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                size *= 2
                if self.fill(size):
                    continue
                raise JSONStreamError(f"{exc.msg} near character {exc.pos}") from None
            if end == len(self.text) and self.fill():  # a number may go on in the next chunk
                continue
            self.pos = end
            return value


def json_items(fh: BinaryIO, *, chunk: int = 1 << 20) -> Iterator[tuple[int | str, Any]]:
    buf = _Buffer(fh, chunk)
    yield from _items(buf, _open(buf))


def json_entries(fh: BinaryIO, *, chunk: int = 1 << 20) -> Iterator[tuple[tuple[int | str, ...], Any]]:
    """As :func:`json_items`, one level deeper under a top-level object: an array value comes item by item, keyed
    ``(key, index)``, so a run summary that wraps a huge list of records (``{"model": ..., "results": [...]}``) is
    read one record at a time too; every other value comes whole, keyed ``(key,)``.

    >>> import io
    >>> list(json_entries(io.BytesIO(b'{"m": "x", "r": [{"a": 1}, 2], "e": []}'), chunk=4))
    [(('m',), 'x'), (('r', 0), {'a': 1}), (('r', 1), 2)]
    >>> list(json_entries(io.BytesIO(b'[[1], 2]')))
    [((0,), [1]), ((1,), 2)]
    """
    buf = _Buffer(fh, chunk)
    opening = _open(buf)
    if opening == "[":
        for index, value in _items(buf, opening):
            yield (index,), value
        return
    for key, _ in _items(buf, opening, lazy=True):
        if buf.peek() == "[":
            buf.pos += 1
            for index, value in _items(buf, "["):
                yield (key, index), value
        else:
            yield (key,), buf.value()


def _open(buf: _Buffer) -> str:
    opening = buf.peek()
    if opening not in ("[", "{"):
        raise JSONStreamError("the document is not a JSON array or object")
    buf.pos += 1
    return opening


def _items(buf: _Buffer, opening: str, *, lazy: bool = False) -> Iterator[tuple[int | str, Any]]:
    """The items up to the closing bracket, the opening one consumed.  ``lazy``: each value is left at the cursor
    for the caller to consume before asking for the next (the item comes as ``None``)."""
    closing = "]" if opening == "[" else "}"
    index = 0
    while (c := buf.peek()) != closing:
        if not c:
            raise JSONStreamError(f"the document ends before its closing {closing!r}")
        key: int | str = index
        if opening == "{":
            k = buf.value()
            if not isinstance(k, str) or buf.peek() != ":":
                raise JSONStreamError(f"item {index}: expected a key and ':'")
            buf.pos += 1
            key = k
        yield key, (None if lazy else buf.value())
        index += 1
        c = buf.peek()
        if c == ",":
            buf.pos += 1
        elif c != closing:
            raise JSONStreamError(f"item {index}: expected ',' or {closing!r}")
    buf.pos += 1
