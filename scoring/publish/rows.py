"""The rows of a published benchmark, written as a stream to JSON Lines and Parquet.

Both files hold the same rows in sample-id order with the same fixed column types
(``layout.row_columns``), whatever the data (an all-empty list column stays a list of text).
A JSON Lines row is its canonical bytes (RFC 8785) and a line feed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from scoring.publish.layout import ROWS_JSONL, ROWS_PARQUET
from studio.canonical import canonical_bytes

_ARROW = {"string": pa.string(), "int64": pa.int64(), "list<string>": pa.list_(pa.string())}
BATCH = 2000


def arrow_schema(columns: list[tuple[str, str]]) -> pa.Schema:
    return pa.schema([pa.field(name, _ARROW[kind]) for name, kind in columns])


class RowsWriter:
    """Writes rows to both files as they come; ``close()`` returns the JSON Lines SHA-256."""

    def __init__(self, folder: Path, columns: list[tuple[str, str]]):
        self.columns = columns
        self.names = [name for name, _ in columns]
        self.schema = arrow_schema(columns)
        (Path(folder) / "data").mkdir(parents=True, exist_ok=True)
        self._jsonl = open(Path(folder) / ROWS_JSONL, "wb")  # noqa: SIM115 (closed in close())
        self._parquet = pq.ParquetWriter(Path(folder) / ROWS_PARQUET, self.schema)
        self._batch: list[dict] = []
        self._digest = hashlib.sha256()
        self.count = 0

    def add(self, row: dict) -> None:
        if list(row) != self.names and set(row) != set(self.names):
            extra = sorted(set(row) ^ set(self.names))
            raise ValueError(f"row {row.get('sample_id')}: columns differ ({', '.join(extra)})")
        line = canonical_bytes(row) + b"\n"
        self._jsonl.write(line)
        self._digest.update(line)
        self._batch.append(row)
        self.count += 1
        if len(self._batch) >= BATCH:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            table = pa.Table.from_pylist(self._batch, schema=self.schema)
            self._parquet.write_table(table)
            self._batch = []

    def close(self) -> str:
        self._flush()
        self._parquet.close()
        self._jsonl.close()
        return self._digest.hexdigest()

    def abort(self) -> None:
        try:
            self._parquet.close()
        finally:
            self._jsonl.close()


def parquet_rows(path: Path) -> Iterable[dict]:
    """The rows of a Parquet file, one at a time (batches of ``BATCH``)."""
    reader = pq.ParquetFile(path)
    for batch in reader.iter_batches(batch_size=BATCH):
        yield from batch.to_pylist()


def _type_name(kind: pa.DataType) -> str:
    if pa.types.is_list(kind) and pa.types.is_string(kind.value_type):
        return "list<string>"  # whatever the list's item field is called (item, element)
    if pa.types.is_string(kind):
        return "string"
    if pa.types.is_int64(kind):
        return "int64"
    return f"?{kind}"


def parquet_columns(path) -> list[tuple[str, str]]:
    """(name, type) of a Parquet file's columns, in our type names (``?...`` for any other)."""
    return [(f.name, _type_name(f.type)) for f in pq.read_schema(path)]
