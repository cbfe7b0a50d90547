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
import random
import time
from dataclasses import dataclass

from django.db import close_old_connections, transaction
from django.db.models import Q

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
from scoring.providers import CallResult, Cancelled, chat_call
from scoring.runs.media import MediaNotReady, media_payload
from scoring.runs.services import drivers_enqueue, endpoint_config, run_finish_if_done
from studio import services as studio_services
from studio.canonical import canonical_bytes, sha256_hex
from studio.leases import lease_claim, lease_kept, lease_release

log = logging.getLogger("scoring.runs")
DRIVER_SECONDS = 600
MEDIA_POLL_SECONDS = 1.0
VERDICT_OUTCOME = {
    "refusal": Outcome.REFUSAL,
    "api_error": Outcome.API_ERROR,
    "parse_failure": Outcome.PARSE_FAILURE,
}


@dataclass
class Request:
    data: dict
    parts: list
    media_sha256: str = ""
    interface: str = "text"


class PredictionHandler:
    """Predictions: the condition's media (or text evidence) in, the three fields out."""

    purpose = "prediction"

    def prepare(self, run: Run, item: RunItem) -> Request:
        if item.media_id is None:
            return Request(data=item.input, parts=[])
        payload = media_payload(item.media, interface=run.endpoint.media)
        data = {"evidence": {"kind": "images", "count": payload.count}}
        if payload.interface != "frames":
            data = {"evidence": {"kind": "video"}}
        return Request(data, payload.parts, payload.sha256, payload.interface)

    def accept(self, run: Run, item: RunItem, reply) -> tuple[dict, list]:
        return {"prediction": reply.model_dump()}, []

    def failed(self, run: Run, item: RunItem, outcome: str) -> list:
        return []


def handler_for(kind: str):
    if kind == RunKind.PREDICTION:
        return PredictionHandler()
    from scoring.judges.handlers import JUDGE_HANDLERS

    return JUDGE_HANDLERS[kind]()


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


def _claimable(run_id: int):
    return RunItem.objects.filter(run_id=run_id, state=ItemState.PENDING).filter(
        Q(media__isnull=True) | Q(media__status="ready")
    )


class Claimer:
    """Claims a run's pending items for one driver: it reads a batch of candidates once and
    claims them one by one in its own random order (drivers racing for the same rows spread out;
    a lost race costs one UPDATE that changes nothing)."""

    def __init__(self, run_id: int, batch: int):
        self.run_id = run_id
        self.batch = max(batch, 8)
        self.candidates: list[int] = []

    def _refill(self) -> None:
        now = studio_services.now()
        free = Q(lease_owner="") | Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
        self.candidates = list(
            _claimable(self.run_id)
            .filter(free)
            .order_by("position")
            .values_list("pk", flat=True)[: self.batch]
        )
        random.shuffle(self.candidates)

    def next(self) -> tuple[int, str] | tuple[None, None]:
        for _ in range(2):
            if not self.candidates:
                self._refill()
            while self.candidates:
                pk = self.candidates.pop()
                owner = lease_claim(
                    queryset=_claimable(self.run_id), pk=pk, set={"state": ItemState.RUNNING}
                )
                if owner is not None:
                    return pk, owner
        return None, None


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
    fields |= {"outcome": outcome, "detail": detail[:500]}
    return fields, updates


def execute_item(run: Run, package: Package, handler, item_id: int, owner: str, stop) -> str:
    """One claimed item from request to stored outcome; returns what happened."""
    item = RunItem.objects.select_related("media").get(pk=item_id)
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
        cached = (
            RunItem.objects.filter(cache_key=key, outcome=Outcome.OK, state=ItemState.DONE)
            .exclude(pk=item_id)
            .order_by("pk")
            .first()
        )
        if cached is not None:
            result = CallResult(
                verdict=_verdict_reply(),
                content=_reply_content(cached.raw_response),
                raw_response=cached.raw_response,
                returned_model=cached.returned_model,
            )
        else:
            body = {
                "model": run.endpoint.model,
                "messages": render_messages(package, data=request.data, media_parts=request.parts),
                **package.sampling,
            }
            if run.endpoint.json_schema:
                body["response_format"] = response_format(package)
            try:
                result = chat_call(endpoint_config(run.endpoint), body, should_stop=stop)
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
            "cached_from": cached,
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
    with transaction.atomic():
        if not lease_release(model=RunItem, pk=item_id, owner=owner, set=fields):
            return "lost"  # someone else took over; their result stands
        for model, where, values in updates:
            model.objects.filter(**where).update(**values)
    return fields["outcome"]


def _verdict_reply():
    from scoring.providers import Verdict

    return Verdict("reply", "from the cache")


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
    StopFlag.forget(run.pk)  # a resumed run: read its status afresh
    stop = StopFlag(run.pk)
    claimer = Claimer(run.pk, 4 * run.endpoint.max_concurrency)
    started, done = time.monotonic(), 0
    try:
        while time.monotonic() - started < seconds:
            if stop():
                return done
            item_id, owner = claimer.next()
            if item_id is None:
                if _waiting_for_media(run.pk):
                    time.sleep(MEDIA_POLL_SECONDS)
                    continue
                run_finish_if_done(run.pk)
                return done
            if execute_item(run, package, handler, item_id, owner, stop) not in (
                "waiting",
                "cancelled",
                "lost",
                "cache-rejected",
            ):
                done += 1
                if done % 20 == 0:
                    close_old_connections()
        # Time is up with work left: hand over to a fresh task.
        with transaction.atomic():
            drivers_enqueue(run, count=1)
        return done
    finally:
        run_finish_if_done(run.pk)
