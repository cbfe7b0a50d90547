"""The published benchmark: a frozen release or manifest as a folder that runs as shipped (rows,
media, dataset card, lmms-eval and inspect_ai tasks), and the import of such a folder
(docs/publishing.md)."""

from scoring.publish.imports import ImportedSet, benchmark_import
from scoring.publish.media import PublishError
from scoring.publish.services import Published, benchmark_publish, published_set

__all__ = [
    "ImportedSet",
    "PublishError",
    "Published",
    "benchmark_import",
    "benchmark_publish",
    "published_set",
]
