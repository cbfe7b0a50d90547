"""The drivers' hot queries, each one statement: claiming the next item of a run, finding an
item's cached result, and storing its result with its judgements.

A driver runs them for every call, dozens of times a second, and the ORM spends more time
building these queries than the database spends answering them. The claim keeps the lease rules
of ``studio.leases.lease_claim`` exactly (a new owner token, the expiry, ``attempts + 1``, only
when nobody holds the row); on PostgreSQL it is one ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE
SKIP LOCKED) RETURNING``, so drivers never race for a row and a claim is one round trip. Other
databases (SQLite writes one transaction at a time) take the ORM path of ``lease_claim``.

Storing keeps the rule of ``studio.leases.lease_release`` (written only while the caller holds
the lease, the lease cleared) and writes the item and its judgements together or not at all: on
PostgreSQL one ``WITH item AS (UPDATE ... RETURNING id), j1 AS (UPDATE ... WHERE EXISTS (SELECT
1 FROM item)) SELECT count(*) FROM item``, one round trip and atomic as any single statement;
elsewhere the ORM updates in a transaction.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Q

from media.models import RenderedMedia
from scoring.models import ItemState, Outcome, RunItem
from studio import services as studio_services
from studio.leases import lease_claim, lease_release, worker_id

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


Update = tuple[type[models.Model], dict, dict]  # (model, which rows by field, new values)


def _column(model: type[models.Model], name: str) -> tuple[str, models.Field]:
    field = model._meta.get_field(name)
    return connection.ops.quote_name(field.column), field


@cache
def _store_statement(fields: tuple[str, ...], updates: tuple[tuple, ...]) -> str:
    """The statement for an item's ``fields`` and the judgement ``updates`` (their models, the
    fields they select by and the fields they set), values bound in that order."""
    quote = connection.ops.quote_name

    def assignments(model, names) -> str:
        return ", ".join(f"{_column(model, n)[0]} = %s" for n in names)

    item = quote(RunItem._meta.db_table)
    sets = assignments(RunItem, ("lease_owner", "lease_expires_at", *fields))
    # Table and column names come from the models; every value is bound.
    held = "id = %s AND lease_owner = %s"
    parts = [f"item AS (UPDATE {item} SET {sets} WHERE {held} RETURNING id)"]  # noqa: S608
    for n, (model, where, values) in enumerate(updates, start=1):
        table = quote(model._meta.db_table)
        match = " AND ".join(f"{_column(model, w)[0]} = %s" for w in where)
        parts.append(
            f"u{n} AS (UPDATE {table} SET {assignments(model, values)}"  # noqa: S608
            f" WHERE {match} AND EXISTS (SELECT 1 FROM item))"
        )
    return "WITH " + ",\n     ".join(parts) + "\nSELECT count(*) FROM item"


def _prepared(model: type[models.Model], values: dict, names) -> list:
    out = []
    for name in names:
        _quoted, field = _column(model, name)
        out.append(field.get_db_prep_save(values[name], connection))
    return out


def result_store(*, item_id: int, owner: str, fields: dict, updates: list[Update]) -> bool:
    """Write an item's result and its judgements' updates if ``owner`` still holds its lease
    (clearing the lease); False, and nothing written, when someone else took it over."""
    plain = all(
        not hasattr(v, "resolve_expression")
        for values in (fields, *(u[2] for u in updates))
        for v in values.values()
    )
    if connection.vendor != "postgresql" or not plain:
        with transaction.atomic():
            if not lease_release(model=RunItem, pk=item_id, owner=owner, set=fields):
                return False
            for model, where, values in updates:
                model.objects.filter(**where).update(**values)
        return True
    names = tuple(fields)
    shape = tuple((model, tuple(where), tuple(values)) for model, where, values in updates)
    params = ["", None, *_prepared(RunItem, fields, names), item_id, owner]
    for (model, where_names, value_names), (_m, where, values) in zip(shape, updates, strict=True):
        params += _prepared(model, values, value_names)
        params += [
            model._meta.get_field(w).get_db_prep_value(where[w], connection) for w in where_names
        ]
    with connection.cursor() as cursor:
        cursor.execute(_store_statement(names, shape), params)
        return cursor.fetchone()[0] == 1
