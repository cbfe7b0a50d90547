"""REST API for releases, sample designs and manifests. Admins only: collections answer 403 to
everyone else, single objects 404 (review.manifests.selectors). Each view validates with an input
serializer, calls one service and renders an output serializer."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.models.releases import NAME_VALIDATOR
from annotation.releases import release_create
from review.manifests.models import Kind, Method
from review.manifests.selectors import (
    design_for_or_404,
    designs_for,
    manifest_for_or_404,
    manifests_for,
    release_for_or_404,
    releases_for,
)
from review.manifests.services import (
    bundle_zip_file,
    design_create,
    design_preview,
    design_update,
    manifest_freeze,
)
from studio.api import ApiError, StudioApiView
from studio.roles import is_admin


class IsAdminRole(BasePermission):
    message = "Only admins can manage releases and manifests."

    def has_permission(self, request, view) -> bool:
        return is_admin(request.user)


def _bad_request(exc: DjangoValidationError) -> Response:
    """400 in the API's one error shape (studio.api): a sentence, and the messages per field."""
    errors = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
    first = next(iter(errors.values()), ["Invalid request."])[0]
    return Response({"detail": first, "errors": errors}, status=status.HTTP_400_BAD_REQUEST)


NO_SUCH_RELEASE = OpenApiResponse(ApiError, description="No release has the id given in the body.")


def _zip_response(file, name: str) -> FileResponse:
    return FileResponse(
        file, as_attachment=True, filename=f"{name}.zip", content_type="application/zip"
    )


# --- Releases ---------------------------------------------------------------------------------


class ReleaseOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    parent = serializers.CharField(source="parent.name", allow_null=True, default=None)
    note = serializers.CharField()
    origin = serializers.CharField()
    sample_count = serializers.IntegerField()
    sample_list_sha256 = serializers.CharField()
    manifest_sha256 = serializers.CharField()
    records_sha256 = serializers.CharField()
    frozen_at = serializers.DateTimeField()
    download_url = serializers.SerializerMethodField()

    def get_download_url(self, release) -> str:
        return reverse("review:release-download", args=[release.pk])


class ReleaseFreezeInput(serializers.Serializer):
    name = serializers.CharField(max_length=80, validators=[NAME_VALIDATOR])
    note = serializers.CharField(required=False, allow_blank=True, default="")
    allow_incomplete = serializers.BooleanField(required=False, default=False)
    parent = serializers.IntegerField(
        required=False, allow_null=True, default=None, help_text="Id of the release corrected"
    )


class ReleaseListApi(StudioApiView):
    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses=ReleaseOutput(many=True), summary="Frozen releases with their hashes")
    def get(self, request: Request) -> Response:
        return Response(ReleaseOutput(releases_for(request.user), many=True).data)

    @extend_schema(
        request=ReleaseFreezeInput,
        responses={201: ReleaseOutput, 404: NO_SUCH_RELEASE},
        summary="Freeze every active step as a release (or a correction of a parent release)",
    )
    def post(self, request: Request) -> Response:
        data = ReleaseFreezeInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        parent = values["parent"]
        if parent is not None:
            parent = release_for_or_404(request.user, parent)
        try:
            release = release_create(
                name=values["name"],
                author=request.user,
                note=values["note"],
                parent=parent,
                allow_incomplete=values["allow_incomplete"],
            )
        except DjangoValidationError as exc:
            return _bad_request(exc)
        return Response(ReleaseOutput(release).data, status=status.HTTP_201_CREATED)


class ReleaseDetailApi(StudioApiView):
    @extend_schema(responses=ReleaseOutput, summary="One frozen release")
    def get(self, request: Request, release_id: int) -> Response:
        return Response(ReleaseOutput(release_for_or_404(request.user, release_id)).data)


class ReleaseDownloadApi(StudioApiView):
    @extend_schema(
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="The release bundle (.zip): manifest.json, samples.txt, annotations.jsonl, "
        "steps.csv, SHA256SUMS",
    )
    def get(self, request: Request, release_id: int) -> FileResponse:
        release = release_for_or_404(request.user, release_id)
        return _zip_response(bundle_zip_file(release=release), release.name)


# --- Sample designs ---------------------------------------------------------------------------


class DesignOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    method = serializers.CharField()
    release = serializers.IntegerField(source="release_id")
    release_name = serializers.CharField(source="release.name")
    seed = serializers.IntegerField()
    params = serializers.JSONField()
    updated_at = serializers.DateTimeField()


class DesignInput(serializers.Serializer):
    name = serializers.CharField(max_length=80, validators=[NAME_VALIDATOR])
    kind = serializers.ChoiceField(choices=Kind.choices, default=Kind.AUDIT)
    # The exact program needs prediction runs: judge_validation_freeze makes those manifests.
    method = serializers.ChoiceField(
        choices=[(m.value, m.label) for m in Method if m != Method.MILP]
    )
    release = serializers.IntegerField()
    seed = serializers.IntegerField(min_value=0, max_value=2**53 - 1)
    params = serializers.JSONField(help_text="Design parameters; see docs/manifests.md")


class DesignListApi(StudioApiView):
    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses=DesignOutput(many=True), summary="Sample designs (drafts)")
    def get(self, request: Request) -> Response:
        return Response(DesignOutput(designs_for(request.user), many=True).data)

    @extend_schema(
        request=DesignInput,
        responses={201: DesignOutput, 404: NO_SUCH_RELEASE},
        summary="Create a design",
    )
    def post(self, request: Request) -> Response:
        data = DesignInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        values["release"] = release_for_or_404(request.user, values["release"])
        try:
            design = design_create(author=request.user, **values)
        except DjangoValidationError as exc:
            return _bad_request(exc)
        return Response(DesignOutput(design).data, status=status.HTTP_201_CREATED)


class DesignDetailApi(StudioApiView):
    @extend_schema(responses=DesignOutput, summary="One design")
    def get(self, request: Request, design_id: int) -> Response:
        return Response(DesignOutput(design_for_or_404(request.user, design_id)).data)

    @extend_schema(
        request=DesignInput(partial=True), responses=DesignOutput, summary="Change a design"
    )
    def patch(self, request: Request, design_id: int) -> Response:
        design = design_for_or_404(request.user, design_id)
        data = DesignInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        if "release" in values:
            values["release"] = release_for_or_404(request.user, values["release"])
        try:
            design = design_update(design=design, values=values)
        except DjangoValidationError as exc:
            return _bad_request(exc)
        return Response(DesignOutput(design).data)


class DesignPreviewCount(serializers.Serializer):
    available = serializers.IntegerField()
    target = serializers.IntegerField(allow_null=True)
    achieved = serializers.IntegerField()


class DesignPreviewSceneBin(DesignPreviewCount):
    scene = serializers.CharField()
    bin = serializers.IntegerField()


class DesignPreviewScene(DesignPreviewCount):
    scene = serializers.CharField()


class DesignPreviewBin(DesignPreviewCount):
    bin = serializers.IntegerField()
    label = serializers.CharField()


class DesignPreviewVideo(DesignPreviewCount):
    video = serializers.CharField(help_text="SHA-256 of the source video")
    scene = serializers.CharField()


class DesignPreviewBinLabel(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField()


class DesignPreviewOutput(serializers.Serializer):
    target_n = serializers.IntegerField()
    achieved_n = serializers.IntegerField()
    bins = DesignPreviewBinLabel(many=True)
    scene_bin = DesignPreviewSceneBin(many=True)
    scenes = DesignPreviewScene(many=True)
    bin_totals = DesignPreviewBin(many=True)
    videos = DesignPreviewVideo(many=True)


class DesignPreviewApi(StudioApiView):
    @extend_schema(
        responses={200: DesignPreviewOutput, 400: OpenApiResponse(description="Infeasible design")},
        summary="Achieved counts per scene x bin, per scene, per bin and per video vs targets",
    )
    def get(self, request: Request, design_id: int) -> Response:
        design = design_for_or_404(request.user, design_id)
        try:
            report = design_preview(design=design)
        except DjangoValidationError as exc:
            return _bad_request(exc)
        return Response(DesignPreviewOutput(report).data)


class ManifestOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    method = serializers.CharField()
    seed = serializers.IntegerField()
    release = serializers.CharField(source="release.name")
    design = serializers.IntegerField(source="design_id", allow_null=True)
    sample_count = serializers.IntegerField()
    sample_list_sha256 = serializers.CharField()
    manifest_sha256 = serializers.CharField()
    records_sha256 = serializers.CharField()
    frozen_at = serializers.DateTimeField()
    manifest = serializers.JSONField(help_text="The complete manifest (its canonical bytes hash)")
    download_url = serializers.SerializerMethodField()

    def get_download_url(self, manifest) -> str:
        return reverse("review:manifest-download", args=[manifest.pk])


class ManifestFreezeInput(serializers.Serializer):
    name = serializers.CharField(
        max_length=80,
        required=False,
        validators=[NAME_VALIDATOR],
        help_text="Defaults to the design's name",
    )


class DesignFreezeApi(StudioApiView):
    @extend_schema(
        request=ManifestFreezeInput,
        responses={201: ManifestOutput},
        summary="Freeze a design as a manifest",
    )
    def post(self, request: Request, design_id: int) -> Response:
        design = design_for_or_404(request.user, design_id)
        data = ManifestFreezeInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            manifest = manifest_freeze(
                design=design, author=request.user, name=data.validated_data.get("name")
            )
        except DjangoValidationError as exc:
            return _bad_request(exc)
        return Response(ManifestOutput(manifest).data, status=status.HTTP_201_CREATED)


# --- Manifests --------------------------------------------------------------------------------


class ManifestListApi(StudioApiView):
    permission_classes = [IsAuthenticated, IsAdminRole]

    @extend_schema(responses=ManifestOutput(many=True), summary="Frozen manifests with hashes")
    def get(self, request: Request) -> Response:
        return Response(ManifestOutput(manifests_for(request.user), many=True).data)


class ManifestDetailApi(StudioApiView):
    @extend_schema(responses=ManifestOutput, summary="One frozen manifest")
    def get(self, request: Request, manifest_id: int) -> Response:
        return Response(ManifestOutput(manifest_for_or_404(request.user, manifest_id)).data)


class ManifestDownloadApi(StudioApiView):
    @extend_schema(
        responses={(200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY)},
        summary="The manifest bundle (.zip)",
    )
    def get(self, request: Request, manifest_id: int) -> FileResponse:
        manifest = manifest_for_or_404(request.user, manifest_id)
        return _zip_response(bundle_zip_file(manifest=manifest), manifest.name)
