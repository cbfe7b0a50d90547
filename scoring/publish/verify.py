"""What a published folder's files mean, checked by ``verify_manifest`` (``bundle_verify``).

The bundle layer checks the set's own files and the SHA-256 of every file ``SHA256SUMS`` lists.
This check, registered into it when the scoring app is ready, adds what ties the rest together,
for a folder that holds ``publish.json``:

- the files a harness reads are all listed (none can change unseen);
- ``publish.json`` names the set of ``manifest.json`` (name, both hashes, record format);
- every row of ``data/test.jsonl`` is canonical, has exactly the declared columns, and its record
  is the line of ``annotations.jsonl`` at the same place; the Parquet file has the declared types
  and the same rows;
- every medium a row names is listed, named by its content, and its SHA-256 is the row's;
- each package file hashes to the SHA-256 publish.json gives;
- the card declares every column with its type, and names both hashes;
- a manifest's folder holds the bundle of the release it was drawn from.

Each problem is one line naming the file (and the line) that differs.
"""

from __future__ import annotations

import hashlib
import io
import json

from annotation.releases import BundleReader, VerifyReport, bundle_check
from annotation.releases.bundle import MANIFEST, RECORDS
from scoring.publish.layout import (
    CARD,
    DESCRIPTION,
    FORMAT,
    HARNESS_FILE,
    INSPECT_FILE,
    LMMS_DIR,
    MEDIA_DIR,
    MEDIA_PREFIX,
    RELEASE_DIR,
    ROWS_JSONL,
    ROWS_PARQUET,
    record_of,
)
from studio.canonical import canonical_bytes

_MAX_REPORTED = 20


def _listed(report: VerifyReport, described: dict) -> list[str]:
    # The harness files (and the shipped harness module they read) only when a bundle is checked:
    # this module is imported by every process, for its registration.
    from scoring.publish.harness_files import lmms_tasks

    wanted = [DESCRIPTION, CARD, ROWS_JSONL, ROWS_PARQUET, HARNESS_FILE, INSPECT_FILE]
    wanted += [f"{LMMS_DIR}/utils.py"]
    wanted += [
        f"{LMMS_DIR}/{t}.yaml"
        for t, _c, _i in lmms_tasks(described["name"], described["conditions"])
    ]
    wanted += [p["file"] for p in described.get("packages", {}).values()]
    return [f"{name}: not listed in SHA256SUMS" for name in wanted if name not in report.listed]


def _manifest_matches(reader: BundleReader, described: dict, report: VerifyReport) -> list[str]:
    manifest = report.manifest or {}
    problems = []
    for key in ("name", "record_format", "sample_count", "sample_list_sha256"):
        if described.get(key) != manifest.get(key):
            said = f"{MANIFEST} says {manifest.get(key)!r}"
            problems.append(f"{DESCRIPTION}: {key} is {described.get(key)!r}, {said}")
    if described.get("manifest_sha256") != report.manifest_sha256:
        problems.append(
            f"{DESCRIPTION}: manifest_sha256 is not that of {MANIFEST} ({report.manifest_sha256})"
        )
    if manifest.get("kind") != "release":
        ref = (manifest.get("release") or {}).get("manifest_sha256")
        name = f"{RELEASE_DIR}/{MANIFEST}"
        if not reader.has(name):
            problems.append(f"{name}: missing (the release this set was drawn from)")
        elif report.listed.get(name) != ref:
            problems.append(f"{name}: SHA-256 is not the release's {ref} that {MANIFEST} names")
    return problems


def _media_problems(row: dict, number: int, report: VerifyReport) -> list[str]:
    problems = []
    for column, value in row.items():
        if not column.startswith(MEDIA_PREFIX) or column.endswith("_sha256") or value is None:
            continue
        paths = value if isinstance(value, list) else [value]
        digests = row.get(f"{column}_sha256")
        digests = digests if isinstance(digests, list) else [digests]
        if len(paths) != len(digests):
            problems.append(
                f"{ROWS_JSONL} line {number}: {column} and its SHA-256s differ in length"
            )
            continue
        for path, digest in zip(paths, digests, strict=True):
            stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
            if not path.startswith(f"{MEDIA_DIR}/") or stem != digest:
                problems.append(
                    f"{ROWS_JSONL} line {number}: {column} {path} is not named by its SHA-256"
                )
            elif report.listed.get(path) != digest:
                problems.append(
                    f"{ROWS_JSONL} line {number}: {path} is not listed with SHA-256 {digest}"
                )
    return problems


def _rows_problems(reader: BundleReader, described: dict, report: VerifyReport) -> list[str]:
    problems: list[str] = []
    columns = [tuple(c) for c in described.get("columns", [])]
    names = [c for c, _ in columns]
    record_format = described.get("record_format")
    if not (reader.has(ROWS_JSONL) and reader.has(RECORDS)):
        return problems  # already reported as missing
    with reader.open(ROWS_JSONL) as rows, reader.open(RECORDS) as records:
        number = 0
        for number, line in enumerate(rows, 1):
            record_line = records.readline()
            try:
                row = json.loads(line)
                canonical = canonical_bytes(row) + b"\n"
            except (ValueError, TypeError) as exc:
                problems.append(f"{ROWS_JSONL} line {number}: not a row ({exc})")
                break
            if canonical != line:
                problems.append(f"{ROWS_JSONL} line {number}: not in canonical form")
            if sorted(row) != sorted(names):
                problems.append(f"{ROWS_JSONL} line {number}: columns differ from {DESCRIPTION}")
            elif canonical_bytes(record_of(row, record_format)) + b"\n" != record_line:
                problems.append(
                    f"{ROWS_JSONL} line {number}: its record is not line {number} of {RECORDS}"
                )
            problems += _media_problems(row, number, report)
            if len(problems) >= _MAX_REPORTED:
                return problems
        if records.readline():
            problems.append(f"{ROWS_JSONL}: {number} rows, {RECORDS} has more records")
    if reader.has(ROWS_PARQUET):
        from scoring.publish.rows import parquet_columns, parquet_rows  # pyarrow: only here

        with reader.open(ROWS_PARQUET) as handle:
            data = (
                io.BytesIO(handle.read())
                if not hasattr(handle, "seekable") or not handle.seekable()
                else handle
            )
            found = parquet_columns(data)
            if found != columns:
                problems.append(f"{ROWS_PARQUET}: columns or types differ from {DESCRIPTION}")
                return problems
            with reader.open(ROWS_JSONL) as rows:
                for number, (parquet_row, line) in enumerate(
                    zip(parquet_rows(data), rows, strict=False), 1
                ):
                    if canonical_bytes(parquet_row) + b"\n" != line:
                        problems.append(
                            f"{ROWS_PARQUET} row {number}: differs from {ROWS_JSONL} line {number}"
                        )
                        break
    return problems


def _packages_problems(reader: BundleReader, described: dict) -> list[str]:
    problems = []
    for purpose, entry in described.get("packages", {}).items():
        if not reader.has(entry["file"]):
            continue
        with reader.open(entry["file"]) as handle:
            raw = handle.read()
        try:
            digest = hashlib.sha256(canonical_bytes(json.loads(raw))).hexdigest()
        except (ValueError, TypeError):
            digest = None
        if digest != entry["sha256"] or canonical_bytes(json.loads(raw)) != raw:
            problems.append(
                f"{entry['file']}: the {purpose} package does not hash to {entry['sha256']}"
            )
    return problems


def _card_problems(reader: BundleReader, described: dict) -> list[str]:
    if not reader.has(CARD):
        return []
    with reader.open(CARD) as handle:
        text = handle.read().decode("utf-8", "replace")
    problems = []
    if not text.startswith("---\n") or "\n---\n" not in text[4:]:
        return [f"{CARD}: no YAML header"]
    import yaml  # only when a bundle with a card is checked

    try:
        header = yaml.safe_load(text[4 : text.index("\n---\n", 4)])
    except yaml.YAMLError as exc:
        return [f"{CARD}: the YAML header does not parse ({exc})"]
    declared = [tuple(c) for c in described.get("columns", [])]
    for info in (header or {}).get("dataset_info") or [{}]:
        found = [
            (
                f.get("name"),
                f.get("dtype") or ("list<string>" if f.get("sequence") == "string" else "?"),
            )
            for f in info.get("features") or []
        ]
        if found != declared:
            config = info.get("config_name")
            problems.append(
                f"{CARD}: config {config} does not declare the columns of {DESCRIPTION}"
            )
    for key in ("sample_list_sha256", "manifest_sha256"):
        if described.get(key) and described[key] not in text:
            problems.append(f"{CARD}: does not name the {key.replace('_', ' ')}")
    return problems


@bundle_check
def published_check(reader: BundleReader, report: VerifyReport) -> None:
    if not reader.has(DESCRIPTION):
        return
    try:
        with reader.open(DESCRIPTION) as handle:
            described = json.loads(handle.read())
        if not isinstance(described, dict) or described.get("format") != FORMAT:
            raise ValueError(f"format is not {FORMAT}")
    except ValueError as exc:
        report.problems.append(f"{DESCRIPTION}: unreadable ({exc})")
        return
    report.problems.extend(_listed(report, described))
    report.problems.extend(_manifest_matches(reader, described, report))
    report.problems.extend(_rows_problems(reader, described, report))
    report.problems.extend(_packages_problems(reader, described))
    report.problems.extend(_card_problems(reader, described))
