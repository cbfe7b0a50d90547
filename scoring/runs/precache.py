"""Results taken from the cache when a run is created, before any driver starts: an item whose
media is ready and whose cache key (``scoring.runs.execute.item_cache_key``, the key a driver
would compute) matches an ``ok`` item of any run takes that result at once, with no call.

``items_from_cache`` does it for the items of a prediction run; a QA run's dialogues take turn
after turn the same way (``scoring.qa.precache``), through the same three steps: key an item
(``item_keyed``), find the results of many keys in a few queries (``cached_hits``), take one
(``take_cached``)."""

from __future__ import annotations

from functools import partial

from scoring.models import ItemState, Outcome, Run, RunItem
from scoring.packages import Package, package_verified
from scoring.providers import MediaPayload
from scoring.runs.execute import PredictionHandler, item_cache_key
from scoring.runs.media import MediaNotReady, digests_load, digests_record
from studio import services as studio_services

BATCH = 500  # keys per query


def item_keyed(run: Run, package: Package, request_of, item: RunItem, payloads: list) -> bool:
    """Key ``item`` as a driver would (``request_of(item)`` makes its request without recording
    digests); False when its media are not ready or cannot be read (a driver will do it). The
    payload is kept in ``payloads`` so its digests can be recorded once for all."""
    if item.media is not None and item.media.status != "ready":
        return False
    try:
        request = request_of(item)
    except (MediaNotReady, OSError):
        return False
    payload: MediaPayload | None = request.payload
    if payload is not None:
        payloads.append(payload)
        payload.release()  # the bytes read for hashing: not sent from here
    item.cache_key = item_cache_key(run, package, request, item)
    item.media_sha256, item.interface = request.media_sha256, request.interface
    return True


def cached_hits(keys) -> dict[str, RunItem]:
    """For each key that has one, the oldest ``ok`` item of any run under it."""
    keys, found = list(keys), {}
    for start in range(0, len(keys), BATCH):
        for hit in (
            RunItem.objects.filter(
                cache_key__in=keys[start : start + BATCH], outcome=Outcome.OK, state=ItemState.DONE
            )
            .only("pk", "cache_key", "prediction", "raw_response", "returned_model")
            .order_by("pk")
        ):
            found.setdefault(hit.cache_key, hit)
    return found


def take_cached(item: RunItem, hit: RunItem, now) -> None:
    """``item`` (not stored yet) ends ``ok`` with ``hit``'s result."""
    item.state, item.outcome, item.cached_from = ItemState.DONE, Outcome.OK, hit
    item.prediction, item.raw_response = hit.prediction, hit.raw_response
    item.returned_model, item.finished_at = hit.returned_model, now


def items_from_cache(run: Run, items: list[RunItem]) -> int:
    """Before a new prediction run's items are stored: every item whose key matches an ``ok``
    item of any run takes that result. Returns how many did."""
    package = package_verified(run.package)
    handler = PredictionHandler()
    digests_load([item.media for item in items if item.media is not None])
    payloads: list = []
    keyed: dict[str, list[RunItem]] = {}
    request_of = partial(handler.prepare, run, record=False)
    for item in items:
        if item_keyed(run, package, request_of, item, payloads):
            keyed.setdefault(item.cache_key, []).append(item)
    digests_record(payloads)  # the workers that send these media need not hash them again
    now = studio_services.now()
    found = cached_hits(keyed)
    for key, hit in found.items():
        for item in keyed[key]:
            take_cached(item, hit, now)
    return sum(len(keyed[k]) for k in found)
