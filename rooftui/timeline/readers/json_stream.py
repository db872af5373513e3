"""Stream the items of one big array inside a JSON object, one at a time.

A Kineto trace is ``{"schemaVersion": 1, "deviceProperties": [...], ...,
"traceEvents": [ {event}, {event}, ... ], ...}`` and ``traceEvents`` is nearly
all of it. :func:`iter_array_items` walks the top-level object with the standard
library's C scanner (``json.JSONDecoder.raw_decode``) over a sliding text buffer:
small top-level values are decoded whole and handed back in ``other_keys``, the
big array is decoded one item at a time, so memory holds one buffer (1 MiB) plus
one item, never the whole document. No dependency; ``benchmarks/timeline_stream.py``
compares it with ijson.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

CHUNK_CHARS = 1 << 20
# No trace event comes near this (PyTorch's are a few hundred characters, tens of KB
# with long argument lists); a longer value means a broken (unterminated) or hostile
# file. Decoded, a value takes up to ~8 bytes per character (a list of floats).
MAX_VALUE_CHARS = 16 << 20
# Top-level values other than the big array (schemaVersion, deviceProperties, ...) are
# kept decoded: their text is bounded in all, not only one by one.
MAX_OTHER_CHARS = 16 << 20
_WHITESPACE = " \t\n\r"
_SEPARATOR = re.compile(r"[ \t\n\r]*([,\]])[ \t\n\r]*")


class JsonStreamError(ValueError):
    """The text is not JSON, or ends before the document does."""

    def __init__(self, message: str, truncated: bool = False):
        super().__init__(message)
        self.truncated = truncated


class _Buffer:
    """A window onto a text stream that grows on demand and drops what was consumed."""

    def __init__(self, stream: TextIO, chunk_chars: int):
        self.stream = stream
        self.chunk_chars = chunk_chars
        self.text = ""
        self.pos = 0
        self.eof = False
        self.consumed_before = 0  # characters dropped from the front, for messages

    def more(self, at_least: int = 0) -> bool:
        """Read another chunk (of at least ``at_least`` characters); False at end of stream."""
        if self.eof:
            return False
        chunk = self.stream.read(max(self.chunk_chars, at_least))
        if not chunk:
            self.eof = True
            return False
        self.consumed_before += self.pos
        self.text = self.text[self.pos :] + chunk
        self.pos = 0
        return True

    def skip_whitespace(self) -> str:
        """Move past whitespace and return the next character ('' at end of stream)."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _WHITESPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.more():
                return ""

    def expect(self, char: str, context: str) -> None:
        found = self.skip_whitespace()
        if found != char:
            self.fail(f"expected '{char}' {context}", truncated=found == "")
        self.pos += 1

    def decode_value(self, decoder: json.JSONDecoder) -> Any:
        """Decode one JSON value at the cursor, reading more text while it is cut off."""
        self.skip_whitespace()
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as err:
                # A value cut by the end of the buffer fails either as an
                # unterminated string or within a few characters of the end
                # ("tru", "\u12"): read on and try again.
                cut = err.msg.startswith("Unterminated string") or err.pos >= len(self.text) - 8
                pending = len(self.text) - self.pos
                if cut and pending > MAX_VALUE_CHARS:
                    self.fail(f"a single value runs past {MAX_VALUE_CHARS:,} characters")
                # Doubling what is read keeps a long value linear to decode.
                if cut and self.more(at_least=pending):
                    continue
                if cut and _is_cut_at_end(self.text, err.pos):
                    self.fail("the JSON ends in the middle of a value", truncated=True)
                self.fail(f"not valid JSON ({err.msg})", offset=err.pos)
            # A number at the very end of the buffer may continue in the next chunk.
            if end == len(self.text) and not self.eof and self.more():
                continue
            self.pos = end
            return value

    def fail(self, message: str, truncated: bool = False, offset: int | None = None) -> None:
        where = self.consumed_before + (self.pos if offset is None else offset)
        raise JsonStreamError(f"{message} at character {where:,}", truncated=truncated)


def _is_cut_at_end(text: str, error_pos: int) -> bool:
    """At end of input, whether a decode error means the text stops early."""
    tail = text[error_pos:].strip()
    return (
        tail == ""
        or tail.startswith('"')
        or any(literal.startswith(tail) for literal in ("true", "false", "null"))
    )


def iter_array_items(
    stream: TextIO, array_key: str, other_keys: dict[str, Any], chunk_chars: int = CHUNK_CHARS
) -> Iterator[Any]:
    """Yield the items of ``document[array_key]`` from a stream holding a JSON object.

    Every other top-level key's value is stored in ``other_keys`` as it is met
    (keys after the array are only there once the iterator is exhausted).
    Raises :class:`JsonStreamError` if the stream is not a JSON object, is
    truncated, or has no ``array_key`` array.
    """
    try:
        yield from _array_items(stream, array_key, other_keys, chunk_chars)
    except JsonStreamError:
        raise
    except ValueError as err:  # the scanner's int() of a literal over 4,300 digits (CPython's limit)
        first = str(err).split(";")[0]
        raise JsonStreamError(f"a number too long to read ({first})") from None


def _array_items(
    stream: TextIO, array_key: str, other_keys: dict[str, Any], chunk_chars: int
) -> Iterator[Any]:
    decoder = json.JSONDecoder()
    buf = _Buffer(stream, chunk_chars)
    first = buf.skip_whitespace()
    if first != "{":
        buf.fail("not a JSON object", truncated=first == "")
    buf.pos += 1
    found = False
    keys_seen = 0
    other_chars = 0
    while True:
        char = buf.skip_whitespace()
        if char == "}":
            buf.pos += 1
            break
        if keys_seen:
            if char != ",":
                buf.fail("expected ',' between keys", truncated=char == "")
            buf.pos += 1
            buf.skip_whitespace()
        key = buf.decode_value(decoder)
        if not isinstance(key, str):
            buf.fail("expected a key")
        keys_seen += 1
        buf.expect(":", f"after key {key!r}")
        if key == array_key and not found:
            found = True
            yield from _iter_items(buf, decoder)
        else:
            before = buf.consumed_before + buf.pos
            other_keys[key] = buf.decode_value(decoder)
            other_chars += buf.consumed_before + buf.pos - before
            if other_chars > MAX_OTHER_CHARS:
                buf.fail(f"the values besides {array_key!r} run past {MAX_OTHER_CHARS:,} characters")
    if not found:
        raise JsonStreamError(f'no "{array_key}" array')
    if buf.skip_whitespace() != "":
        buf.fail("extra text after the JSON object")


def _iter_items(buf: _Buffer, decoder: json.JSONDecoder) -> Iterator[Any]:
    buf.expect("[", "to open the array")
    if buf.skip_whitespace() == "]":
        buf.pos += 1
        return
    raw_decode, separator = decoder.raw_decode, _SEPARATOR.match
    while True:
        # Fast path: decode item after item straight from the buffer while each is
        # followed, within the buffer, by its separator.
        buf.skip_whitespace()
        text, pos = buf.text, buf.pos
        last = len(text)
        while True:
            try:
                value, end = raw_decode(text, pos)
            except json.JSONDecodeError:
                break
            found = separator(text, end)
            if found is None or found.end() == last:
                break  # the separator may be cut off, or a number may go on
            yield value
            pos = found.end()
            if found.group(1) == "]":
                buf.pos = pos
                return
        # Slow path: the item or its separator runs past the buffer (or is bad).
        buf.pos = pos
        yield buf.decode_value(decoder)
        char = buf.skip_whitespace()
        buf.pos += 1
        if char == "]":
            return
        if char != ",":
            buf.pos -= 1
            buf.fail("expected ',' or ']' in the array", truncated=char == "")
