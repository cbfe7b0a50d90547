"""Export bundles: write one as a stream, verify one, read its records back.

A bundle is a directory (or a .zip of one) holding these files:
``manifest.json`` (the canonical bytes of the complete manifest), ``samples.txt`` (the canonical
single-column sample list), ``annotations.jsonl`` (one canonical record per line, in sample-id
order), ``steps.csv`` (the same records as a table) and ``SHA256SUMS`` (``sha256sum`` format).
docs/manifests.md gives the exact bytes of each. Nothing here knows what a record means, so
releases and sampled manifests share it.

A folder built around a bundle (a published benchmark: media, a dataset card, harness tasks) lists
its other files in the same ``SHA256SUMS``; verifying checks every listed file, and a higher layer
may register a check of what those files mean (``bundle_check``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from studio.canonical import FORMAT, RecordStream, canonical_bytes, sha256_hex

MANIFEST = "manifest.json"
SAMPLES = "samples.txt"
RECORDS = "annotations.jsonl"
TABLE = "steps.csv"
SUMS = "SHA256SUMS"
HASHED_FILES = (RECORDS, MANIFEST, SAMPLES, TABLE)  # sorted by name, as SHA256SUMS lists them
# A fixed zip timestamp so the same bundle always zips to the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_CHUNK = 1 << 16


class BundleError(Exception):
    """The bundle cannot be written or read as asked; the message says why."""


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def csv_columns(record: Mapping) -> list[str]:
    """``sample_id`` first, then the other keys in canonical (RFC 8785) order."""
    return ["sample_id", *sorted((k for k in record if k != "sample_id"), key=_utf16_key)]


def _cell(value) -> str:
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str | int):
        return str(value)
    return canonical_bytes(value).decode("utf-8")  # lists and objects as canonical JSON


class _CsvLines:
    """Renders CSV rows to bytes one at a time (``\\n`` line ends, minimal quoting)."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)

    def line(self, cells: list[str]) -> bytes:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow(cells)
        return self._buffer.getvalue().encode("utf-8")


@dataclass
class BundleHashes:
    sample_count: int
    sample_list_sha256: str
    records_sha256: str
    manifest_sha256: str
    files: dict[str, str]


def bundle_write(*, path: Path, manifest: Mapping, records: Iterable[Mapping]) -> BundleHashes:
    """Write a bundle directory at ``path`` (which must not exist) as a stream.

    ``records`` is consumed once, in sample-id order; memory stays flat whatever their number.
    The records must reproduce the manifest's ``sample_count``, ``sample_list_sha256`` and
    ``records_sha256``: a mismatch means the stored rows no longer match what was frozen, so the
    half-written bundle is removed and BundleError names the difference.
    """
    path = Path(path)
    if path.exists():
        raise BundleError(f"{path} already exists; export into a new directory.")
    work = Path(tempfile.mkdtemp(prefix=".bundle-", dir=path.parent))
    try:
        stream = RecordStream()
        sums = {name: hashlib.sha256() for name in HASHED_FILES}
        table = _CsvLines()
        columns: list[str] | None = None
        with (
            open(work / SAMPLES, "wb") as samples_file,
            open(work / RECORDS, "wb") as records_file,
            open(work / TABLE, "wb") as table_file,
        ):
            for record in records:
                sample_line, record_line = stream.add(record)
                if columns is None:
                    columns = csv_columns(record)
                    header = table.line(columns)
                    table_file.write(header)
                    sums[TABLE].update(header)
                row = table.line([_cell(record[c]) for c in columns])
                samples_file.write(sample_line)
                records_file.write(record_line)
                table_file.write(row)
                sums[SAMPLES].update(sample_line)
                sums[RECORDS].update(record_line)
                sums[TABLE].update(row)
        expected = {
            "sample_count": manifest.get("sample_count"),
            "sample_list_sha256": manifest.get("sample_list_sha256"),
            "records_sha256": manifest.get("records_sha256"),
        }
        got = {
            "sample_count": stream.count,
            "sample_list_sha256": stream.sample_list_sha256,
            "records_sha256": stream.records_sha256,
        }
        wrong = [
            f"{k}: frozen {expected[k]}, rows give {got[k]}"
            for k in expected
            if expected[k] != got[k]
        ]
        if wrong:
            raise BundleError(
                "The stored rows no longer match the frozen manifest: " + "; ".join(wrong)
            )
        manifest_bytes = canonical_bytes(manifest)
        (work / MANIFEST).write_bytes(manifest_bytes)
        sums[MANIFEST].update(manifest_bytes)
        files = {name: sums[name].hexdigest() for name in HASHED_FILES}
        (work / SUMS).write_bytes("".join(f"{files[n]}  {n}\n" for n in HASHED_FILES).encode())
        work.rename(path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return BundleHashes(
        sample_count=stream.count,
        sample_list_sha256=stream.sample_list_sha256,
        records_sha256=stream.records_sha256,
        manifest_sha256=files[MANIFEST],
        files=files,
    )


def bundle_zip(*, directory: Path, target) -> None:
    """Zip a bundle directory into ``target`` (a path or a writable binary file), streaming."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in (*HASHED_FILES, SUMS):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with open(Path(directory) / name, "rb") as source, archive.open(info, "w") as sink:
                shutil.copyfileobj(source, sink, _CHUNK)


def bundle_export(
    *, path: Path, manifest: Mapping, records: Iterable[Mapping], as_zip: bool = False
) -> Path:
    """Write a bundle to ``path``: a new directory, or with ``as_zip`` a new .zip of one."""
    path = Path(path)
    if not as_zip:
        bundle_write(path=path, manifest=manifest, records=records)
        return path
    if path.exists():
        raise BundleError(f"{path} already exists.")
    with tempfile.TemporaryDirectory(dir=path.parent) as work:
        directory = Path(work) / "bundle"
        bundle_write(path=directory, manifest=manifest, records=records)
        bundle_zip(directory=directory, target=path)
    return path


def bundle_zip_tempfile(*, manifest: Mapping, records: Iterable[Mapping]):
    """A bundle as an anonymous temporary .zip file, rewound.

    Written as a stream to disk (flat memory); the file disappears when closed, which a
    FileResponse does once it has been sent.
    """
    target = tempfile.TemporaryFile()  # noqa: SIM115 - the caller (a FileResponse) closes it
    try:
        with tempfile.TemporaryDirectory() as work:
            directory = Path(work) / "bundle"
            bundle_write(path=directory, manifest=manifest, records=records)
            bundle_zip(directory=directory, target=target)
    except BaseException:
        target.close()
        raise
    target.seek(0)
    return target


class BundleReader:
    """Opens the files of a bundle directory or .zip alike (names are relative, ``/``-separated)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._zip = None
        if self.path.is_file():
            try:
                self._zip = zipfile.ZipFile(self.path)
            except zipfile.BadZipFile as exc:
                raise BundleError(f"{self.path} is neither a bundle directory nor a .zip") from exc
        elif not self.path.is_dir():
            raise BundleError(f"{self.path} does not exist")

    def names(self) -> set[str]:
        if self._zip is not None:
            return set(self._zip.namelist())
        return {p.name for p in self.path.iterdir() if p.is_file()}

    def has(self, name: str) -> bool:
        if self._zip is not None:
            try:
                self._zip.getinfo(name)
            except KeyError:
                return False
            return True
        return (self.path / name).is_file()

    def open(self, name: str):
        if self._zip is not None:
            return self._zip.open(name)
        return open(self.path / name, "rb")

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


@contextmanager
def bundle_reader(path: Path) -> Iterator[BundleReader]:
    """The files of a bundle directory or .zip, closed on leaving."""
    reader = BundleReader(path)
    try:
        yield reader
    finally:
        reader.close()


def safe_name(name: str) -> bool:
    """A file name a bundle may list: relative, ``/``-separated, never leaving the bundle."""
    if not name or name.startswith("/") or "\\" in name or "\x00" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def file_sha256(reader: BundleReader, name: str) -> str:
    digest = hashlib.sha256()
    with reader.open(name) as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class VerifyReport:
    problems: list[str] = field(default_factory=list)
    manifest: dict | None = None
    manifest_sha256: str | None = None
    sample_list_sha256: str | None = None
    records_sha256: str | None = None
    sample_count: int = 0

    # every file SHA256SUMS lists, with its SHA-256 as listed (checked against the bytes)
    listed: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


BundleCheck = Callable[[BundleReader, VerifyReport], None]
_CHECKS: list[BundleCheck] = []


def bundle_check(check: BundleCheck) -> BundleCheck:
    """Register a check that ``bundle_verify`` runs after its own, on every bundle: it reads what
    it needs through the reader and appends to ``report.problems`` (a higher layer registers the
    meaning of the files it adds around a bundle, from its ``AppConfig.ready``)."""
    if check not in _CHECKS:
        _CHECKS.append(check)
    return check


def bundle_verify(path: Path) -> VerifyReport:
    """Recompute every hash of a bundle and name each mismatch (memory stays flat)."""
    report = VerifyReport()
    problems = report.problems
    with bundle_reader(path) as reader:
        present = reader.names()
        missing = [n for n in (*HASHED_FILES, SUMS) if n not in present]
        problems.extend(f"{n}: missing from the bundle" for n in missing)

        listed: dict[str, str] = {}
        if SUMS in present:
            with reader.open(SUMS) as handle:
                for number, raw in enumerate(
                    handle.read().decode("utf-8", "replace").splitlines(), 1
                ):
                    digest, sep, name = raw.partition("  ")
                    if not sep or len(digest) != 64:
                        problems.append(f"{SUMS} line {number}: not '<sha256>  <file>'")
                        continue
                    if not safe_name(name) or name == SUMS:
                        problems.append(f"{SUMS} line {number}: {name!r} is not a bundle file")
                        continue
                    listed[name] = digest
            problems.extend(f"{SUMS}: does not list {n}" for n in HASHED_FILES if n not in listed)
        actual = {n: file_sha256(reader, n) for n in HASHED_FILES if n in present}
        for name, digest in sorted(actual.items()):
            if name in listed and listed[name] != digest:
                problems.append(f"{name}: SHA-256 is {digest}, {SUMS} says {listed[name]}")
        # Any other file the bundle lists (the media and texts of a published benchmark): every
        # byte is covered by its line.
        for name in sorted(set(listed) - set(HASHED_FILES)):
            if not reader.has(name):
                problems.append(f"{name}: listed in {SUMS} but missing")
                continue
            digest = file_sha256(reader, name)
            if digest != listed[name]:
                problems.append(f"{name}: SHA-256 is {digest}, {SUMS} says {listed[name]}")
        report.listed = dict(listed)

        manifest = None
        if MANIFEST in present:
            with reader.open(MANIFEST) as handle:
                raw = handle.read()
            report.manifest_sha256 = sha256_hex(raw)
            try:
                manifest = json.loads(raw.decode("utf-8"))
                if not isinstance(manifest, dict):
                    raise ValueError("not a JSON object")
                if canonical_bytes(manifest) != raw:
                    problems.append(f"{MANIFEST}: not in canonical form (RFC 8785)")
            except (ValueError, TypeError) as exc:
                problems.append(f"{MANIFEST}: unreadable ({exc})")
                manifest = None
            if manifest is not None and manifest.get("format") != FORMAT:
                problems.append(
                    f"{MANIFEST}: format is {manifest.get('format')!r}, expected {FORMAT!r}"
                )
        report.manifest = manifest

        if RECORDS in present:
            stream = RecordStream()
            table_sum = hashlib.sha256()
            table = _CsvLines()
            columns = None
            with reader.open(RECORDS) as handle:
                for number, line in enumerate(handle, 1):
                    try:
                        record = json.loads(line)
                        if not isinstance(record, dict) or "sample_id" not in record:
                            raise ValueError("not an object with a sample_id")
                        _, canonical_line = stream.add(record)
                    except (ValueError, TypeError) as exc:
                        problems.append(f"{RECORDS} line {number}: {exc}")
                        break
                    if canonical_line != line:
                        problems.append(f"{RECORDS} line {number}: not in canonical form")
                        break
                    if columns is None:
                        columns = csv_columns(record)
                        table_sum.update(table.line(columns))
                    elif set(record) != set(columns):
                        problems.append(f"{RECORDS} line {number}: fields differ from line 1")
                        break
                    table_sum.update(table.line([_cell(record[c]) for c in columns]))
                else:
                    report.sample_count = stream.count
                    report.sample_list_sha256 = stream.sample_list_sha256
                    report.records_sha256 = stream.records_sha256
                    if SAMPLES in actual and actual[SAMPLES] != stream.sample_list_sha256:
                        problems.append(
                            f"{SAMPLES}: SHA-256 is {actual[SAMPLES]}, the sample ids of "
                            f"{RECORDS} give {stream.sample_list_sha256}"
                        )
                    if TABLE in actual and actual[TABLE] != table_sum.hexdigest():
                        problems.append(f"{TABLE}: does not match the records of {RECORDS}")
                    if manifest is not None:
                        for key, value in (
                            ("sample_count", stream.count),
                            ("sample_list_sha256", stream.sample_list_sha256),
                            ("records_sha256", stream.records_sha256),
                        ):
                            if manifest.get(key) != value:
                                problems.append(
                                    f"{MANIFEST}: {key} is {manifest.get(key)}, "
                                    f"the records give {value}"
                                )
        for check in _CHECKS:
            check(reader, report)
    return report


def bundle_records(path: Path) -> Iterator[dict]:
    """The records of a bundle, one at a time (verify it first)."""
    with bundle_reader(path) as reader, reader.open(RECORDS) as handle:
        for line in handle:
            yield json.loads(line)
