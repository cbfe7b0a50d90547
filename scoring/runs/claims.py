"""The drivers' two hot queries, each one statement: claiming the next item of a run and finding
an item's cached result.

A driver runs them for every call, dozens of times a second, and the ORM spends more time
building these queries than the database spends answering them. The claim keeps the lease rules
of ``studio.leases.lease_claim`` exactly (a new owner token, the expiry, ``attempts + 1``, only
when nobody holds the row); on PostgreSQL it is one ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE
SKIP LOCKED) RETURNING``, so drivers never race for a row and a claim is one round trip. Other
databases (SQLite writes one transaction at a time) take the ORM path of ``lease_claim``.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from media.models import RenderedMedia
from scoring.models import ItemState, Outcome, RunItem
from studio import services as studio_services
from studio.leases import lease_claim, worker_id

# Never read by a driver (a cache hit reads it on its own): kept out of the claim.
_NOT_READ = {"raw_response"}


def _claimable(run_id: int):
    return RunItem.objects.filter(run_id=run_id, state=ItemState.PENDING).filter(
        Q(media__isnull=True) | Q(media__status="ready")
    )


@cache
def _claim_statement() -> tuple[str, tuple]:
    """The PostgreSQL claim and the fields its RETURNING lists (in order)."""
    table = connection.ops.quote_name(RunItem._meta.db_table)
    media = connection.ops.quote_name(RenderedMedia._meta.db_table)
    fields = tuple(f for f in RunItem._meta.concrete_fields if f.name not in _NOT_READ)
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    sql = f"""
        UPDATE {table}
           SET lease_owner = %s, lease_expires_at = %s, attempts = attempts + 1, state = %s
         WHERE id = (
               SELECT i.id FROM {table} i LEFT JOIN {media} m ON m.id = i.media_id
                WHERE i.run_id = %s AND i.state = %s
                  AND (i.media_id IS NULL OR m.status = %s)
                  AND (i.lease_owner = '' OR i.lease_expires_at IS NULL
                       OR i.lease_expires_at < %s)
                ORDER BY i.position
                LIMIT 1
                  FOR UPDATE OF i SKIP LOCKED)
        RETURNING {columns}
    """  # noqa: S608 - table and column names come from the models; values are bound
    return sql, fields


@cache
def _converters(field) -> tuple:
    """The column and the converters the ORM applies to it when it reads a row."""
    col = field.get_col(RunItem._meta.db_table)
    return col, [*connection.ops.get_db_converters(col), *col.get_db_converters(connection)]


def _from_row(fields: tuple, row) -> RunItem:
    values = []
    for field, value in zip(fields, row, strict=True):
        col, converters = _converters(field)
        for convert in converters:
            value = convert(value, col, connection)
        values.append(value)
    return RunItem.from_db(connection.alias, [f.attname for f in fields], values)


def claim_next(run_id: int) -> tuple[RunItem, str] | tuple[None, None]:
    """Claim the first free pending item of the run (media ready or none); returns it (without
    ``raw_response``) and the lease owner, or (None, None) when nothing is claimable now."""
    now = studio_services.now()
    if connection.vendor != "postgresql":
        return _claim_orm(run_id, now)
    owner = f"{worker_id()}:{secrets.token_hex(4)}"
    expires = now + timedelta(seconds=settings.LEASE_SECONDS)
    sql, fields = _claim_statement()
    params = [owner, expires, ItemState.RUNNING, run_id, ItemState.PENDING, "ready", now]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None, None
    return _from_row(fields, row), owner


def _claim_orm(run_id: int, now) -> tuple[RunItem, str] | tuple[None, None]:
    free = Q(lease_owner="") | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
    with transaction.atomic():
        item = _claimable(run_id).filter(free).defer(*_NOT_READ).order_by("position").first()
        if item is None:
            return None, None
        owner = lease_claim(
            queryset=_claimable(run_id), pk=item.pk, set={"state": ItemState.RUNNING}
        )
    return (item, owner) if owner is not None else (None, None)


@cache
def _cache_statement() -> str:
    table = connection.ops.quote_name(RunItem._meta.db_table)
    return f"""
        SELECT id, raw_response, returned_model FROM {table}
         WHERE cache_key = %s AND outcome = %s AND state = %s AND id <> %s
         ORDER BY id
         LIMIT 1
    """  # noqa: S608 - the table name comes from the model; values are bound


def cached_result(key: str, *, exclude_id: int) -> tuple[int, str, str] | None:
    """(id, raw_response, returned_model) of the first ``ok`` item with cache key ``key``."""
    with connection.cursor() as cursor:
        cursor.execute(_cache_statement(), [key, Outcome.OK, ItemState.DONE, exclude_id])
        return cursor.fetchone()
