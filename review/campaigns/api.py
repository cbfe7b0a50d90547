"""The generic campaign API (mounted under api/review/ by review/urls.py).

A participant claims, renews, drafts, submits, supersedes and releases through their opaque
assignment token only; no answer names a step, sample, video or other person. Kinds with their own
pages (the audit) call the same services. Admins read progress."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from review.campaigns.kinds import campaign_kind
from review.campaigns.payloads import MAX_BODY_BYTES, parse_json
from review.campaigns.progress import progress
from review.campaigns.selectors import (
    assignment_for_or_404,
    campaign_for_or_404,
    participating_campaign_or_404,
)
from review.campaigns.services import (
    CampaignClosed,
    LeaseLost,
    claim_next,
    claimable_later,
    current_submission,
    parts_done,
    release,
    renew,
    save_draft,
    submit,
    supersede,
)
from studio.api import StudioApiView
from studio.roles import is_admin


class PayloadParser(BaseParser):
    """DRF's JSON parser for the campaign API, with the bounds of ``payloads.parse_json``: a
    refused body is DRF's 400 ``ParseError`` with the reason. (Here, with the API, so that the
    services that check payloads do not load REST framework's parsers.)"""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read(MAX_BODY_BYTES + 1) if stream is not None else b""
        try:
            return parse_json(raw or b"{}")
        except DjangoValidationError as exc:
            raise ParseError(exc.message_dict["detail"][0]) from None


class IsAdminRole(BasePermission):
    message = "Only admins read campaign progress."

    def has_permission(self, request, view) -> bool:
        return is_admin(request.user)


def _bad_request(exc: DjangoValidationError) -> Response:
    """The API's one error shape: ``{"detail": the first reason, "errors": {field: reasons}}``."""
    errors = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
    first = next((m for messages in errors.values() for m in messages), "Invalid request.")
    return Response({"detail": first, "errors": errors}, status=status.HTTP_400_BAD_REQUEST)


def _conflict(exc: Exception) -> Response:
    return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)


def assignment_state(assignment) -> dict:
    """What a participant may know about their own assignment (no ids but the token)."""
    kind = campaign_kind(assignment.campaign.kind)
    done = parts_done(assignment)
    return {
        "token": assignment.token,
        "state": assignment.state,
        "parts": list(kind.parts),
        "parts_done": done,
        "next_part": kind.next_part(done),
        "expires_at": assignment.lease_expires_at,
        "url": kind.page_url(assignment),
    }


class PartInput(serializers.Serializer):
    part = serializers.CharField(allow_blank=True, max_length=40, default="")
    payload = serializers.JSONField()


class SupersedeInput(PartInput):
    reason = serializers.CharField(allow_blank=True, max_length=2000, default="")


def _input(serializer_class, request: Request):
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return data.validated_data


class ClaimApi(StudioApiView):
    @extend_schema(request=None, responses={200: dict}, summary="Claim my next item")
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = participating_campaign_or_404(request.user, campaign_id)
        try:
            assignment = claim_next(campaign=campaign, person=request.user)
        except CampaignClosed as exc:
            return _conflict(exc)
        if assignment is None:
            later = claimable_later(campaign=campaign, person=request.user)
            return Response(
                {"token": None, "state": "waiting" if later else "none", "later": later}
            )
        return Response(assignment_state(assignment))


class AssignmentApi(StudioApiView):
    @extend_schema(responses={200: dict}, summary="My assignment and its draft")
    def get(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        return Response({**assignment_state(assignment), "draft": assignment.draft})


class RenewApi(StudioApiView):
    @extend_schema(request=None, responses={200: dict}, summary="Keep my lease")
    def post(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        if not renew(assignment=assignment, person=request.user):
            return _conflict(LeaseLost("Your claim on this item ended; claim again."))
        assignment.refresh_from_db()
        return Response(assignment_state(assignment))


class ReleaseApi(StudioApiView):
    @extend_schema(request=None, responses={200: dict}, summary="Give the item back")
    def post(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        released = release(assignment=assignment, person=request.user)
        return Response({"released": released})


class DraftApi(StudioApiView):
    parser_classes = [PayloadParser]

    @extend_schema(request=PartInput, responses={200: dict}, summary="Autosave my draft")
    def put(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        data = _input(PartInput, request)
        try:
            saved = save_draft(
                assignment=assignment, person=request.user, part=data["part"],
                payload=data["payload"],
            )  # fmt: skip
        except DjangoValidationError as exc:
            return _bad_request(exc)
        except CampaignClosed as exc:
            return _conflict(exc)
        return Response(saved)


class SubmitApi(StudioApiView):
    parser_classes = [PayloadParser]

    @extend_schema(request=PartInput, responses={201: dict}, summary="Submit a part")
    def post(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        data = _input(PartInput, request)
        try:
            submit(
                assignment=assignment, person=request.user, part=data["part"],
                payload=data["payload"],
            )  # fmt: skip
        except DjangoValidationError as exc:
            return _bad_request(exc)
        except (CampaignClosed, LeaseLost) as exc:
            return _conflict(exc)
        assignment.refresh_from_db()
        return Response(assignment_state(assignment), status=status.HTTP_201_CREATED)


class SupersedeApi(StudioApiView):
    parser_classes = [PayloadParser]

    @extend_schema(request=SupersedeInput, responses={201: dict}, summary="Change a submitted part")
    def post(self, request: Request, token: str) -> Response:
        assignment = assignment_for_or_404(request.user, token)
        data = _input(SupersedeInput, request)
        current = current_submission(assignment=assignment, part=data["part"])
        if current is None:
            return Response(
                {"part": ["Nothing submitted for this part yet."]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            supersede(
                submission=current, person=request.user, payload=data["payload"],
                reason=data["reason"],
            )  # fmt: skip
        except DjangoValidationError as exc:
            return _bad_request(exc)
        except CampaignClosed as exc:
            return _conflict(exc)
        assignment.refresh_from_db()
        return Response(assignment_state(assignment), status=status.HTTP_201_CREATED)


class ProgressApi(StudioApiView):
    permission_classes = [IsAdminRole]

    @extend_schema(responses={200: dict}, summary="Campaign progress (admins)")
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_for_or_404(request.user, campaign_id)
        return Response(progress(campaign=campaign))
