"""The published benchmark: a frozen release or manifest as a folder that runs as shipped (rows,
media, dataset card, lmms-eval and inspect_ai tasks), and the import of such a folder
(docs/publishing.md).

- ``services.benchmark_publish`` writes a folder, ``imports.benchmark_import`` loads one;
- ``verify`` registers what the published files mean into the bundle verifier (imported when the
  scoring app is ready, so it stays light: Parquet is read with pyarrow only when a published
  folder is verified);
- ``harness/`` holds the Python files shipped in the folder as they are.

This module imports nothing itself, so that loading the check does not load pyarrow into every
process.
"""
