"""The one JSON Lines reader of every import (docs/security.md, "Imports").

``json_lines(source, problems=...)`` yields ``(line number, object)`` for every line that is a
JSON object, streaming: a file is read one line at a time, so memory does not grow with its
size. Each line is decoded as UTF-8 on its own, so a bad byte names its line. A line is refused
(a problem naming its line, nothing yielded) when it is

- longer than ``MAX_LINE_BYTES`` (not read into memory beyond that);
- not UTF-8, not JSON, or JSON but not an object;
- holding a key twice in one object (``json`` would keep the last silently);
- holding NaN or Infinity (JSON has neither; PostgreSQL's JSON refuses them);
- holding text the studio does not store (``studio.text`` in REFUSE mode: NUL, lone surrogates,
  a string over ``max_chars``, nesting deeper than ``max_depth``).

Blank lines are skipped. ``Problems`` collects what is wrong with a file by line, keeps the
first ``MAX_PROBLEMS`` and counts the rest; an import checks every line, and writes nothing
unless there is no problem at all (``Problems.refuse`` raises ``ImportRefused``). ``Seen``
finds keys a file gives twice in little memory (20 bytes a key), for imports whose rows are new
(steps, QA groups) and so are not bounded by what the database already holds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import IO

import numpy as np

from studio.text import MAX_CHARS, MAX_DEPTH, Mode, TextRefused, json_clean

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_PROBLEMS",
    "ImportRefused",
    "Problems",
    "Seen",
    "chunks",
    "json_lines",
    "numbered",
    "rereadable",
]

MAX_PROBLEMS = 100
MAX_LINE_BYTES = 8 * 1024 * 1024
_READ = 1024 * 1024  # bytes of a line read at a time


class ImportRefused(ValueError):
    """A file was refused and nothing was written. ``problems`` holds the first
    ``MAX_PROBLEMS`` as ``(line number or None, message)``, ``total`` how many there were."""

    def __init__(self, problems: Problems | Iterable[tuple[int | None, str]] | str):
        if isinstance(problems, str):
            problems = [(None, problems)]
        if not isinstance(problems, Problems):
            collected = Problems()
            for line, message in problems:
                collected.add(line, message)
            problems = collected
        self.problems = list(problems.shown)
        self.total = problems.total
        super().__init__("\n".join(self.messages()))

    @property
    def more(self) -> int:
        return self.total - len(self.problems)

    def messages(self) -> list[str]:
        """One text per problem shown, then how many more there were."""
        out = [f"line {n}: {m}" if n is not None else m for n, m in self.problems]
        if self.more:
            out.append(f"… and {self.more:,} more problem(s)")
        return out

    def report(self, source: str) -> str:
        """The whole refusal as a command prints it."""
        lines = "\n".join(f"  {m}" for m in self.messages())
        return f"Nothing imported: {self.total:,} problem(s) in {source}:\n{lines}"


class Problems:
    """What is wrong with a file, by line: the first ``limit`` kept, the rest counted."""

    def __init__(self, limit: int = MAX_PROBLEMS):
        self.limit = limit
        self.shown: list[tuple[int | None, str]] = []
        self.total = 0

    def add(self, line: int | None, message: str) -> None:
        self.total += 1
        if len(self.shown) < self.limit:
            self.shown.append((line, message))

    def __len__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        return self.total > 0

    def refuse(self) -> None:
        """ImportRefused when there is any problem, the shown ones ordered by line."""
        self.refuse_as(ImportRefused)

    def add_uncounted(self, count: int) -> None:
        """``count`` more problems that are only counted (beyond what a caller listed)."""
        self.total += count

    def refuse_as(self, error: type[ImportRefused]) -> None:
        """``error`` (ImportRefused or a subclass) when there is any problem."""
        if self.total:
            self.shown.sort(key=lambda p: (p[0] is not None, p[0] or 0))
            raise error(self)


class _DuplicateKey(ValueError):
    pass


class _NotANumber(ValueError):
    pass


def _object(pairs: list[tuple[str, object]]) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return value


def _constant(name: str):
    raise _NotANumber(name)


_decoder = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(number, bytes) of every line; bytes None for a line over MAX_LINE_BYTES (skipped)."""
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while (rest := handle.readline(_READ)) and not rest.endswith(b"\n"):
                pass
            yield number, None
            continue
        yield number, raw


def json_lines(
    source: str | Path | IO[bytes],
    *,
    problems: Problems,
    max_chars: int = MAX_CHARS,
    max_depth: int = MAX_DEPTH,
) -> Iterator[tuple[int, dict]]:
    """``(line number, object)`` of every good line of ``source`` (a path or a binary stream);
    every bad line is added to ``problems`` instead. See the module's list of what is bad."""
    if isinstance(source, str | Path):
        with open(source, "rb") as handle:
            yield from json_lines(handle, problems=problems, max_chars=max_chars,
                                  max_depth=max_depth)  # fmt: skip
        return
    for number, raw in _lines(source):
        if raw is None:
            problems.add(number, f"longer than {MAX_LINE_BYTES:,} bytes")
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.add(number, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1})")
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte order mark some editors write
        text = text.rstrip("\r\n")
        if not text.strip():
            continue
        value = _parse(number, text, problems, max_chars, max_depth)
        if value is not None:
            yield number, value


def _parse(number: int, text: str, problems: Problems, max_chars: int, max_depth: int):
    try:
        value = _decoder.decode(text)
    except json.JSONDecodeError as exc:
        problems.add(number, f"not JSON ({exc.msg} at column {exc.colno})")
        return None
    except _DuplicateKey as exc:
        problems.add(number, f"the key {exc.args[0]!r} appears twice in one object")
        return None
    except _NotANumber as exc:
        problems.add(number, f"{exc.args[0]} is not a JSON number")
        return None
    except RecursionError:
        problems.add(number, f"nested deeper than {max_depth} levels")
        return None
    if not isinstance(value, dict):
        problems.add(number, "not a JSON object")
        return None
    # Only an escape (\u...) can make a NUL or a surrogate, only a long line a long string and
    # only many brackets deep nesting: most lines need no walk.
    if "\\u" in text or len(text) > max_chars or text.count("[") + text.count("{") > max_depth:
        try:
            json_clean(value, mode=Mode.REFUSE, max_chars=max_chars, max_depth=max_depth)
        except TextRefused as exc:
            problems.add(number, str(exc).removeprefix("$").lstrip(". "))
            return None
    return value


def numbered(lines: Iterable) -> Iterator[tuple[int, object]]:
    """``(line number, object)`` pairs from ``json_lines`` as they are, or numbered from 1 for
    plain objects (callers that build lines in memory: demos, tests)."""
    for number, line in enumerate(lines, start=1):
        yield line if isinstance(line, tuple) else (number, line)


def chunks(iterable: Iterable, size: int = 1000) -> Iterator[list]:
    """Lists of ``size`` items (the last may be shorter): lookups a batch at a time.

    With DEBUG (the development mode) Django keeps the text of the last 9,000 queries of a
    connection; a batch lookup names a thousand keys, so a long file would hold hundreds of
    megabytes of SQL that nothing reads. Each batch starts with that log empty."""
    from django.db import connections

    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        for connection in connections.all(initialized_only=True):
            connection.queries_log.clear()
        yield chunk


@contextmanager
def rereadable(source: str | Path | IO[bytes]) -> Iterator[Path]:
    """A path to read ``source`` from as many times as needed: the path itself, or a temporary
    copy of a stream (standard input), made without holding it in memory."""
    if isinstance(source, str | Path):
        yield Path(source)
        return
    with tempfile.NamedTemporaryFile(prefix="studio-import-", suffix=".jsonl") as copy:
        shutil.copyfileobj(source, copy, _READ)
        copy.flush()
        yield Path(copy.name)


class Seen:
    """Keys given by a file in 20 bytes each (a 128-bit digest and the line number), held in
    fixed blocks so that a million keys cost 20 MB and never a copy of all of them while they
    grow; ``duplicates()`` then names the lines that repeat an earlier key."""

    BLOCK = 65_536

    def __init__(self) -> None:
        self._blocks: list[bytearray] = []
        self._used = self.BLOCK  # of the last block

    def add(self, key: str, line: int) -> None:
        if self._used == self.BLOCK:
            self._blocks.append(bytearray(self.BLOCK * _SEEN.itemsize))
            self._used = 0
        at = self._used * _SEEN.itemsize
        block = self._blocks[-1]
        block[at : at + 16] = hashlib.blake2b(
            key.encode("utf-8", "surrogatepass"), digest_size=16
        ).digest()
        block[at + 16 : at + 20] = line.to_bytes(4, "little")
        self._used += 1

    def __len__(self) -> int:
        return max(0, (len(self._blocks) - 1) * self.BLOCK + self._used)

    def duplicates(self, first: int = MAX_PROBLEMS) -> tuple[list[tuple[int, int]], int]:
        """The first ``first`` repeats by line, as ``(line, line of the key's first use)``, and
        how many repeats there are in all."""
        if not self._blocks:
            return [], 0
        blocks = [np.frombuffer(b, dtype=_SEEN) for b in self._blocks]
        keys = np.concatenate([*blocks[:-1], blocks[-1][: self._used]])
        # Sorted in place (a copy of the fields in memory would double it): a key's uses
        # together, its first use first.
        keys.sort(order=("high", "low", "line"))
        same = (keys["high"][1:] == keys["high"][:-1]) & (keys["low"][1:] == keys["low"][:-1])
        again = np.flatnonzero(same) + 1  # every use after a key's first
        total = len(again)
        if not total:
            return [], 0
        lines = keys["line"]
        shown = again[np.argsort(lines[again], kind="stable")[:first]]
        starts = np.flatnonzero(np.concatenate(([True], ~same)))  # each key's first use
        firsts = starts[np.searchsorted(starts, shown, side="right") - 1]
        pairs = zip(lines[shown].tolist(), lines[firsts].tolist(), strict=True)
        return list(pairs), total


# The digest's two halves as big-endian integers (its bytes as they come), then the line.
_SEEN = np.dtype([("high", ">u8"), ("low", ">u8"), ("line", "<u4")])
