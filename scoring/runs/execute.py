"""Working off a run: drivers claim pending items under a lease, call the endpoint, and store
exactly one outcome per item.

A driver is a task on the ``models`` queue (a threads worker). It claims the next pending item
whose media is ready (``studio.leases.lease_claim``), keeps the lease while the call runs
(``lease_kept``), and writes the result only if it still holds it (``lease_release``). A killed
worker loses at most its calls in flight: the sweeper finds their expired leases and queues them
again (the ``scoring.run_item`` work kind). A driver stops after ``DRIVER_SECONDS`` and queues a
successor when work is left, so no task runs for hours.

The cache: an item's key is the SHA-256 of the canonical bytes of everything that decides the
reply (base URL, requested model, sampling, package hash, response format, the call's data,
sample, condition, and the SHA-256 of the exact media bytes sent). An item whose key matches an
``ok`` item of any run takes that result and makes no call.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from django.db import DatabaseError, close_old_connections, connection, transaction

from media.models import RenderedMedia
from scoring.models import ItemState, Outcome, Run, RunItem, RunKind, RunStatus
from scoring.packages import (
    Package,
    PackageError,
    ParseFailure,
    package_verified,
    parse_reply,
    render_messages,
    response_format,
)
from scoring.providers import Body, CallResult, Cancelled, MediaPayload, body_pieces, chat_call
from scoring.runs.claims import cached_result, claim_next, result_store
from scoring.runs.kinds import call_handler
from scoring.runs.lifecycle import drivers_enqueue, endpoint_config, run_finish_if_done
from scoring.runs.media import MediaNotReady, digests_load, media_payload
from studio import services as studio_services
from studio.canonical import canonical_bytes, sha256_hex
from studio.leases import lease_kept, lease_release
from studio.text import Mode, text_clean

log = logging.getLogger("scoring.runs")
DRIVER_SECONDS = 600
DETAIL_CHARS = 500  # RunItem.detail
MEDIA_POLL_SECONDS = 1.0
VERDICT_OUTCOME = {
    "refusal": Outcome.REFUSAL,
    "api_error": Outcome.API_ERROR,
    "parse_failure": Outcome.PARSE_FAILURE,
}


@dataclass
class Request:
    """A call's data and media; the media parts are built only when the call is made."""

    data: dict
    payload: MediaPayload | None = None
    # How the data and media parts become messages (``render_messages`` unless a kind says
    # otherwise: a QA turn's dialogue is ``render_dialogue``).
    render: Callable[..., list[dict]] | None = None

    def take_body(self, make_body) -> Body:
        """The request's body (``body_pieces``): ``make_body(media parts)`` with the media
        spliced in as it is sent; no media bytes are kept here."""
        try:
            return body_pieces(make_body, self.payload)
        finally:
            if self.payload is not None:
                self.payload._parts = None
                self.payload.release()

    @property
    def media_sha256(self) -> str:
        return self.payload.sha256 if self.payload is not None else ""

    @property
    def interface(self) -> str:
        return self.payload.interface if self.payload is not None else "text"


class PredictionHandler:
    """Predictions: the condition's media (or text evidence) in, the three fields out."""

    purpose = "prediction"

    def prepare(self, run: Run, item: RunItem, *, record: bool = True) -> Request:
        if item.media_id is None:
            return Request(data=item.input)
        payload = media_payload(item.media, interface=run.endpoint.media, record=record)
        data = {"evidence": {"kind": "images", "count": payload.count}}
        if payload.interface != "frames":
            data = {"evidence": {"kind": "video"}}
        return Request(data, payload)

    def accept(self, run: Run, item: RunItem, reply) -> tuple[dict, list]:
        return {"prediction": reply.model_dump()}, []

    def failed(self, run: Run, item: RunItem, outcome: str) -> list:
        return []


def handler_for(kind: str):
    if kind == RunKind.PREDICTION:
        return PredictionHandler()
    return call_handler(kind)


class StopFlag:
    """True once the run is no longer running. The status is read from the database at most
    once a second per process (shared by the drivers of a run in this process)."""

    _seen: dict[int, tuple[float, bool]] = {}

    def __init__(self, run_id: int):
        self.run_id = run_id

    def __call__(self) -> bool:
        checked, stopped = self._seen.get(self.run_id, (0.0, False))
        if not stopped and time.monotonic() - checked > 1.0:
            status = Run.objects.filter(pk=self.run_id).values_list("status", flat=True).first()
            stopped = status != RunStatus.RUNNING
            self._seen[self.run_id] = (time.monotonic(), stopped)
        return stopped

    @classmethod
    def forget(cls, run_id: int) -> None:
        cls._seen.pop(run_id, None)


def item_cache_key(run: Run, package: Package, request: Request, item: RunItem) -> str:
    endpoint = run.endpoint
    return sha256_hex(
        canonical_bytes(
            {
                "base_url": endpoint.base_url,
                "model": endpoint.model,
                "sampling": package.sampling,
                "package_sha256": package.sha256,
                "response_format": endpoint.json_schema,
                "kind": run.kind,
                "condition": run.condition,
                "sample": item.key if run.kind == RunKind.PREDICTION else None,
                "data": request.data,
                "interface": request.interface,
                "media_sha256": request.media_sha256,
            }
        )
    )


def request_body(
    run: Run, package: Package, data: dict, media_parts: list[dict], *, render=None
) -> dict:
    """The body of a call of ``run``: the endpoint's model, the package's messages with the
    call's data and media parts (``render``, by default ``render_messages``), its sampling, and
    the JSON schema when the endpoint takes one."""
    built = {
        "model": run.endpoint.model,
        "messages": (render or render_messages)(package, data=data, media_parts=media_parts),
        **package.sampling,
    }
    if run.endpoint.json_schema:
        built["response_format"] = response_format(package)
    return built


def _waiting_for_media(run_id: int) -> bool:
    """Pending items whose media may still become ready (pending or rendering, not failed)."""
    return RunItem.objects.filter(
        run_id=run_id, state=ItemState.PENDING, media__status__in=["pending", "rendering"]
    ).exists()


def _reply_content(raw_response: str) -> str | None:
    try:
        return json.loads(raw_response)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _give_back(item_id: int, owner: str, error: str = "") -> None:
    lease_release(
        model=RunItem, pk=item_id, owner=owner, set={"state": ItemState.PENDING, "error": error}
    )


def _decide(handler, run, item, package, result: CallResult) -> tuple[dict, list]:
    """Item fields and judgement updates for a call's result."""
    fields: dict = {}
    updates: list = []
    verdict = result.verdict
    if verdict.kind == "reply":
        try:
            reply = parse_reply(package.purpose, result.content)
            fields, updates = handler.accept(run, item, reply)
            outcome, detail = Outcome.OK, ""
        except ParseFailure as exc:
            outcome, detail = Outcome.PARSE_FAILURE, str(exc)
    else:
        outcome, detail = VERDICT_OUTCOME[verdict.kind], verdict.detail
    if outcome != Outcome.OK:
        fields, updates = {}, handler.failed(run, item, outcome)
    detail = text_clean(detail, mode=Mode.REPLACE, max_chars=DETAIL_CHARS)
    fields |= {"outcome": outcome, "detail": detail}
    return fields, updates


def execute_item(run: Run, package: Package, handler, item: RunItem, owner: str, stop) -> str:
    """One claimed item from request to stored outcome; returns what happened."""
    item_id = item.pk
    with lease_kept(model=RunItem, pk=item_id, owner=owner):
        try:
            request = handler.prepare(run, item)
        except MediaNotReady as exc:
            _give_back(item_id, owner, str(exc))
            return "waiting"
        except OSError as exc:
            _give_back(item_id, owner, f"media could not be read: {exc}")
            return "waiting"
        key = item_cache_key(run, package, request, item)
        cached = cached_result(key, exclude_id=item_id)
        if cached is not None:
            _cached_id, raw, returned = cached
            result = CallResult(
                verdict=_verdict_reply(),
                content=_reply_content(raw),
                raw_response=raw,
                returned_model=returned,
            )
        else:
            try:
                result = chat_call(
                    endpoint_config(run.endpoint),
                    lambda: request.take_body(
                        partial(request_body, run, package, request.data, render=request.render)
                    ),
                    should_stop=stop,
                )
            except Cancelled:
                _give_back(item_id, owner)
                return "cancelled"
        fields, updates = _decide(handler, run, item, package, result)
        if cached is not None and fields["outcome"] != Outcome.OK:
            # The cached reply no longer passes (a stricter check): call for real next time.
            _give_back(item_id, owner, "the cached reply no longer passes; calling again")
            RunItem.objects.filter(pk=item_id).update(cache_key="")
            return "cache-rejected"
        calls = [*item.calls, *result.attempts_json()]
        fields |= {
            "state": ItemState.DONE,
            "cache_key": key,
            "cached_from_id": cached[0] if cached is not None else None,
            "media_sha256": request.media_sha256,
            "interface": request.interface,
            "raw_response": result.raw_response,
            "returned_model": result.returned_model,
            "calls": calls,
            "requests": len(calls),
            "prompt_tokens": item.prompt_tokens + result.prompt_tokens,
            "completion_tokens": item.completion_tokens + result.completion_tokens,
            "finished_at": studio_services.now(),
            "error": "",
        }
        fields.setdefault("prediction", None)
    try:
        stored = _store(item_id, owner, fields, updates)
    except (DatabaseError, ValueError) as exc:
        # The text rule keeps what cannot be stored out of a result; should anything still be
        # refused, the item ends all the same, as a parse failure saying so, and the driver goes
        # on (a driver that raised here would be retried forever, its item never done).
        log.exception("run %s item %s: the result could not be stored", run.name, item_id)
        fields = {
            **{k: fields[k] for k in _KEPT_ON_FAILURE},
            "outcome": Outcome.PARSE_FAILURE,
            "detail": f"the reply could not be stored ({type(exc).__name__}); nothing of it kept",
            "prediction": None,
            "raw_response": "",
            "returned_model": "",
            "calls": [],
        }
        stored = _store(item_id, owner, fields, handler.failed(run, item, Outcome.PARSE_FAILURE))
    if not stored:
        return "lost"  # someone else took over; their result stands
    return fields["outcome"]


_KEPT_ON_FAILURE = (
    "state",
    "cache_key",
    "cached_from_id",
    "media_sha256",
    "interface",
    "requests",
    "prompt_tokens",
    "completion_tokens",
    "finished_at",
    "error",
)


def _store(item_id: int, owner: str, fields: dict, updates: list) -> bool:
    if connection.in_atomic_block:
        # A savepoint, so a refused write leaves the caller's transaction usable.
        with transaction.atomic():
            return result_store(item_id=item_id, owner=owner, fields=fields, updates=updates)
    return result_store(item_id=item_id, owner=owner, fields=fields, updates=updates)


def _verdict_reply():
    from scoring.providers import Verdict

    return Verdict("reply", "from the cache")


_digests_loaded: set[int] = set()  # runs whose recorded media digests this process has
_digests_lock = threading.Lock()


def _digests_for(run: Run) -> None:
    """Once per process and run: the recorded digests of the media its pending items send."""
    with _digests_lock:
        if run.pk in _digests_loaded:
            return
        media = RenderedMedia.objects.filter(
            pk__in=RunItem.objects.filter(run=run, state=ItemState.PENDING).values("media_id")
        )
        digests_load(list(media))
        _digests_loaded.add(run.pk)


def run_drive(*, run_id: int, seconds: float = DRIVER_SECONDS) -> int:
    """Work off run ``run_id`` until nothing is claimable; returns the items finished."""
    run = Run.objects.select_related("endpoint", "package").filter(pk=run_id).first()
    if run is None or run.status != RunStatus.RUNNING:
        return 0
    try:
        package = package_verified(run.package)
    except PackageError as exc:
        Run.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
            status=RunStatus.CANCELLED, error=str(exc), finished_at=studio_services.now()
        )
        log.error("run %s stopped: %s", run.name, exc)
        return 0
    handler = handler_for(run.kind)
    _digests_for(run)
    StopFlag.forget(run.pk)  # a resumed run: read its status afresh
    stop = StopFlag(run.pk)
    started, done = time.monotonic(), 0
    try:
        while time.monotonic() - started < seconds:
            if stop():
                return done
            item, owner = claim_next(run.pk)
            if item is None:
                if _waiting_for_media(run.pk):
                    time.sleep(MEDIA_POLL_SECONDS)
                    continue
                run_finish_if_done(run.pk)
                return done
            happened = execute_item(run, package, handler, item, owner, stop)
            # With DEBUG (the development mode) Django keeps the last 9,000 queries of every
            # thread's connection: megabytes per driver. Nothing reads them here.
            connection.queries_log.clear()
            if happened not in (
                "waiting",
                "cancelled",
                "lost",
                "cache-rejected",
            ):
                done += 1
                if done % 20 == 0 and not connection.in_atomic_block:
                    # (Inside a caller's transaction, such as a demo seed driving a run in its
                    # own process, the connection is the caller's to keep.)
                    close_old_connections()
        # Time is up with work left: hand over to a fresh task.
        with transaction.atomic():
            drivers_enqueue(run, count=1)
        return done
    finally:
        run_finish_if_done(run.pk)
