"""Thin API views of the annotation workspace (one class per operation).

Every view reaches its video or step through ``annotation.selectors``: reads with the user's read
scope (the assigned annotator, adjudicators, admins), writes with ``edit=True`` (the assigned
annotator and admins). Outside the read scope the answer is 404, never 403, so ids cannot be
probed; a write by someone who may only read (an adjudicator) is 403. Writes happen in the
services, inside one transaction; a bad or refused request writes nothing.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections import OrderedDict
from pathlib import Path

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import services
from annotation.api import serializers as s
from annotation.api.payloads import revision_payload, step_payload, steps_payload, video_payload
from annotation.history import frame_times
from annotation.models import MicroStep
from annotation.rendering import step_official_preview
from annotation.selectors import step_for_or_404, video_for_or_404
from annotation.visibility import labels_shown
from media.serving import file_response
from media.timebase import MAX_STEP_US
from studio.api import StudioApiView

TAG = ["annotation workspace"]
FRAME_DELTAS_MEDIA_TYPE = "application/vnd.intent-studio.frame-deltas"
NOT_FOUND = OpenApiResponse(s.ErrorOutput, description="Not yours to read, or no such object.")
READ_ONLY = OpenApiResponse(
    s.ErrorOutput, description="Your role may read this video's annotation but not change it."
)
BAD = OpenApiResponse(s.ErrorOutput, description="Invalid values; nothing was written.")
STALE = OpenApiResponse(
    s.ConflictOutput, description="Stale version: someone saved in between; nothing was written."
)


def _invalid(exc: DjangoValidationError) -> Response:
    if hasattr(exc, "error_dict"):
        errors = {field: [str(m) for m in msgs] for field, msgs in exc.message_dict.items()}
    else:
        errors = {"non_field_errors": [str(m) for m in exc.messages]}
    first = next(iter(errors.values()))[0]
    return Response({"detail": first, "errors": errors}, status=status.HTTP_400_BAD_REQUEST)


def _stale(exc: services.StaleVersionError) -> Response:
    stored = exc.current
    return Response(
        {
            "detail": f"Someone saved this step in between (stored version {stored.version}).",
            "stored": step_payload(stored),
        },
        status=status.HTTP_409_CONFLICT,
    )


def _changed(*steps: MicroStep, replayed: bool = False, code: int = 200) -> Response:
    return Response({"steps": [step_payload(x) for x in steps], "replayed": replayed}, status=code)


class InvalidInput(APIException):
    """A malformed request, answered in the same shape as a broken rule: {detail, errors}."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, errors: dict):
        flat = {
            field: [str(m) for m in (msgs if isinstance(msgs, list) else [msgs])]
            for field, msgs in errors.items()
        }
        first = next(iter(flat.values()), ["Invalid request."])
        super().__init__({"detail": f"{first[0]}", "errors": flat})


class WorkspaceApiView(StudioApiView):
    """Turns the services' refusals into answers, so views only call them: a broken rule is 400
    ``{detail, errors}``, a stale version 409 ``{detail, stored}``; neither wrote anything."""

    def handle_exception(self, exc):
        if isinstance(exc, DjangoPermissionDenied):
            return Response({"detail": str(exc)}, status=status.HTTP_403_FORBIDDEN)
        if isinstance(exc, services.StaleVersionError):
            return _stale(exc)
        if isinstance(exc, DjangoValidationError):
            return _invalid(exc)
        return super().handle_exception(exc)


def _valid(serializer_class, request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    if not serializer.is_valid():
        raise InvalidInput(serializer.errors)
    return dict(serializer.validated_data)


class PingApi(WorkspaceApiView):
    """The cheapest authenticated answer: the page uses it to learn the server is back."""

    @extend_schema(tags=TAG, operation_id="workspace_ping", responses={200: s.PingOutput})
    def get(self, request: Request) -> Response:
        return Response({"ok": True})


class WorkspaceApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="workspace_load",
        summary="A video and all its steps, as the workspace opens them.",
        responses={200: s.WorkspaceOutput, 404: NOT_FOUND},
    )
    def get(self, request: Request, video_id: int) -> Response:
        video = video_for_or_404(request.user, video_id)
        steps = MicroStep.objects.filter(video_id=video.pk)
        labels_shown(request.user, steps.only("uid"))
        return Response(
            {
                "video": video_payload(video),
                "steps": steps_payload(steps),
                "max_step_us": MAX_STEP_US,
            }
        )


# The index of a given file never changes, so its JSON is encoded (and gzipped) once per process
# and kept for the most recently used files: a one-hour 30 fps index is about 1 MB of JSON and
# about a fifth of that gzipped. It holds no secret, so compressing it leaks nothing.
_FRAME_TIMES_CACHE: OrderedDict[str, tuple[bytes, bytes]] = OrderedDict()
_FRAME_TIMES_CACHE_SIZE = 8
_FRAME_TIMES_LOCK = threading.Lock()


def _frame_times_json(video) -> tuple[bytes, bytes]:
    """(plain, gzipped) JSON of the video's frame-time index."""
    with _FRAME_TIMES_LOCK:
        cached = _FRAME_TIMES_CACHE.get(video.sha256)
        if cached is not None:
            _FRAME_TIMES_CACHE.move_to_end(video.sha256)
            return cached
    times = video.frame_times_us().tolist()
    plain = json.dumps({"count": len(times), "frame_times_us": times}, separators=(",", ":"))
    plain_bytes = plain.encode()
    cached = (plain_bytes, gzip.compress(plain_bytes, compresslevel=6, mtime=0))
    with _FRAME_TIMES_LOCK:
        _FRAME_TIMES_CACHE[video.sha256] = cached
        while len(_FRAME_TIMES_CACHE) > _FRAME_TIMES_CACHE_SIZE:
            _FRAME_TIMES_CACHE.popitem(last=False)
    return cached


class FrameDeltasRenderer(BaseRenderer):
    """The compact form of a frame-time index: the zlib stream (RFC 1950) of its little-endian
    int64 deltas, first delta the first time (0), exactly as ``media.timebase`` stores it. A
    1.68 million-frame index is some tens of kilobytes this way instead of megabytes of JSON,
    and the server sends the stored bytes without decoding them."""

    media_type = FRAME_DELTAS_MEDIA_TYPE
    format = "deltas"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data


class FrameTimesApi(WorkspaceApiView):
    renderer_classes = [JSONRenderer, FrameDeltasRenderer]

    @extend_schema(
        tags=TAG,
        operation_id="workspace_frame_times",
        summary="The video's frame-time index: the time of every frame, in µs.",
        description=(
            "JSON lists every time. With `Accept: " + FRAME_DELTAS_MEDIA_TYPE + "` the answer "
            "is compact: the zlib stream of the index's little-endian int64 deltas (the first is "
            "the first time, 0); their running sum is the index. `X-Frame-Count` gives the "
            "number of frames. The workspace reads this form."
        ),
        responses={
            (200, "application/json"): s.FrameTimesOutput,
            (200, FRAME_DELTAS_MEDIA_TYPE): OpenApiTypes.BINARY,
            304: OpenApiResponse(description="Unchanged since the ETag sent in If-None-Match."),
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, video_id: int) -> HttpResponse:
        video = video_for_or_404(request.user, video_id)
        compact = request.accepted_renderer.format == FrameDeltasRenderer.format
        etag = f'"{video.sha256}-deltas"' if compact else f'"{video.sha256}"'
        if request.headers.get("If-None-Match") == etag:
            response = HttpResponse(status=304)
        elif compact:
            response = HttpResponse(bytes(video.frame_times), content_type=FRAME_DELTAS_MEDIA_TYPE)
            response["X-Frame-Count"] = str(video.frame_count)
        else:
            plain, zipped = _frame_times_json(video)
            if "gzip" in request.headers.get("Accept-Encoding", ""):
                response = HttpResponse(zipped, content_type="application/json")
                response["Content-Encoding"] = "gzip"
            else:
                response = HttpResponse(plain, content_type="application/json")
        response["Vary"] = "Accept, Accept-Encoding"
        response["ETag"] = etag
        response["Cache-Control"] = "private, max-age=3600"
        return response

    def handle_exception(self, exc):
        # Errors are JSON whatever form was asked for.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)


class SourceApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="workspace_source",
        summary="The source video file for the player (HTTP Range supported).",
        responses={
            (200, "video/mp4"): OpenApiTypes.BINARY,
            (206, "video/mp4"): OpenApiTypes.BINARY,
            404: NOT_FOUND,
        },
    )
    def get(self, request: Request, video_id: int) -> HttpResponse:
        video = video_for_or_404(request.user, video_id)
        if not video.file:
            raise Http404("This video has no file.")
        try:
            path = Path(video.file.path)
        except (NotImplementedError, ValueError):
            raise Http404("This video's file is not on this server.") from None
        if not path.is_file():
            raise Http404("This video's file is missing.")
        return file_response(
            request._request,
            path=path,
            storage_name=video.file.name,
            content_type=video.mime_type,
            max_age=300,
        )


class StepCreateApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_create",
        summary="Create a step; a retry with the same uid returns the stored step (200).",
        request=s.StepCreateInput,
        responses={
            201: s.StepChangeOutput,
            200: s.StepChangeOutput,
            400: BAD,
            403: READ_ONLY,
            404: NOT_FOUND,
        },
    )
    def post(self, request: Request, video_id: int) -> Response:
        video = video_for_or_404(request.user, video_id, edit=True)
        data = _valid(s.StepCreateInput, request)
        if "uid" in data:
            step, created = services.step_create_once(video=video, author=request.user, **data)
        else:
            step, created = services.step_create(video=video, author=request.user, **data), True
        return _changed(step, replayed=not created, code=201 if created else 200)


class StepApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_read",
        responses={200: s.StepOutput, 404: NOT_FOUND},
    )
    def get(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id)
        labels_shown(request.user, [step])
        return Response(step_payload(step))

    @extend_schema(
        tags=TAG,
        operation_id="step_save",
        summary="Save some fields of a step (autosave); carries the version it edits.",
        request=s.StepSaveInput,
        responses={200: s.StepChangeOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND, 409: STALE},
    )
    def patch(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id, edit=True)
        data = _valid(s.StepSaveInput, request)
        version, reason = data.pop("version"), data.pop("reason", "")
        saved, replayed = services.step_save(
            step=step, author=request.user, version=version, values=data, reason=reason
        )
        return _changed(saved, replayed=replayed)


class _StatusApi(WorkspaceApiView):
    service = None

    def post(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id, edit=True)
        data = _valid(s.StepVersionInput, request)
        changed = type(self).service(step=step, author=request.user, **data)
        return _changed(changed)


class StepRetractApi(_StatusApi):
    service = services.step_retract

    @extend_schema(
        tags=TAG,
        operation_id="step_retract",
        summary="Retract a step: it leaves the timeline, its rows and revisions stay.",
        request=s.StepVersionInput,
        responses={200: s.StepChangeOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND, 409: STALE},
    )
    def post(self, request: Request, step_id: int) -> Response:
        return super().post(request, step_id)


class StepRestoreApi(_StatusApi):
    service = services.step_restore

    @extend_schema(
        tags=TAG,
        operation_id="step_restore",
        summary="Bring a retracted step back (refused if it now overlaps another).",
        request=s.StepVersionInput,
        responses={200: s.StepChangeOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND, 409: STALE},
    )
    def post(self, request: Request, step_id: int) -> Response:
        return super().post(request, step_id)


class StepSplitApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_split",
        summary="Split a step in two at a frame; the second part is a new step.",
        request=s.StepSplitInput,
        responses={200: s.StepChangeOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND, 409: STALE},
    )
    def post(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id, edit=True)
        data = _valid(s.StepSplitInput, request)
        first, second = services.step_split(step=step, author=request.user, **data)
        return _changed(first, second)


class StepMergeApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_merge",
        summary="Merge a step with the next one; the next is retracted, no text is lost.",
        request=s.StepMergeInput,
        responses={200: s.StepChangeOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND, 409: STALE},
    )
    def post(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id, edit=True)
        data = _valid(s.StepMergeInput, request)
        merged, retracted = services.step_merge(step=step, author=request.user, **data)
        return _changed(merged, retracted)


class StepHistoryApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_history",
        summary="Every revision of a step, newest first: who, when, why, and what changed.",
        responses={200: s.HistoryOutput, 404: NOT_FOUND},
    )
    def get(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id)
        labels_shown(request.user, [step])
        revisions = step.revisions.select_related("author").order_by("-version")
        times = frame_times(step)
        return Response(
            {
                "step": step_payload(step),
                "title": step.display_name,
                "revisions": [revision_payload(r, times) for r in revisions],
            }
        )


class StepPreviewApi(WorkspaceApiView):
    @extend_schema(
        tags=TAG,
        operation_id="step_preview",
        summary="The Official clip of the step's saved times, as a model or rater receives it.",
        description="Requests the render (idempotent; the same times never render twice) and "
        "answers its status; call again until it is ready, then play ``url``.",
        request=None,
        responses={200: s.PreviewOutput, 400: BAD, 403: READ_ONLY, 404: NOT_FOUND},
    )
    def post(self, request: Request, step_id: int) -> Response:
        step = step_for_or_404(request.user, step_id, edit=True)
        return Response(step_official_preview(step=step, user=request.user))
