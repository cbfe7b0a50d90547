"""The throwaway database of benchmarks that start child processes on it: where it lives and
the URL the children get (``DATABASE_URL``)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def bench_database(prefix: str, postgres_name: str) -> Path:
    """A fresh work folder, with the environment pointing Django's test database into it (SQLite)
    or at ``postgres_name`` on the server ``DATABASE_URL`` names (PostgreSQL)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.setdefault("STUDIO_VAR_DIR", str(work / "var"))
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        os.environ["DATABASE_URL"] = f"sqlite:///{work / 'unused.sqlite3'}"
        os.environ["TEST_DATABASE_NAME"] = str(work / "bench.sqlite3")
    else:
        os.environ.setdefault("TEST_DATABASE_NAME", postgres_name)
    return work


def database_url(connection) -> str:
    cfg = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{cfg['NAME']}"
    auth = cfg.get("USER") or ""
    if cfg.get("PASSWORD"):
        auth += f":{cfg['PASSWORD']}"
    auth = f"{auth}@" if auth else ""
    return (
        f"postgres://{auth}{cfg.get('HOST') or '127.0.0.1'}:{cfg.get('PORT') or 5432}/{cfg['NAME']}"
    )
