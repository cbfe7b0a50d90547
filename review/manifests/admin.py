"""Admin pages: freeze releases, edit sample designs, preview them, freeze them into manifests,
list everything frozen with its hashes and download bundles. Freezing and exporting are for the
admin role only (checked in every custom view, not just by hiding buttons)."""

from __future__ import annotations

import secrets

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import OuterRef, Subquery
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from annotation.models import Release, ReleaseStep
from annotation.releases import release_create
from media.display import mark_column
from media.models import SourceVideo
from review.manifests.models import Manifest, ManifestSample, SampleDesign
from studio.canonical import MAX_SAFE_INTEGER

# review.manifests.services (the samplers, pydantic) is imported where an admin page uses it:
# the admin of every app is imported by every command.
from studio.downloads import as_download
from studio.roles import is_admin


def _require_admin(request: HttpRequest) -> None:
    if not is_admin(request.user):
        raise PermissionDenied("Only admins can freeze or export.")


def _short(sha: str) -> str:
    return format_html('<code title="{}">{}…</code>', sha, sha[:16]) if sha else "-"


class _ReadOnly(admin.ModelAdmin):
    """Frozen things: visible, never added, changed or deleted through the admin."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class _SealedAdmin(_ReadOnly):
    """A release or a manifest: both hashes shown short, and its bundle to download."""

    download_url_name = ""

    @admin.display(description="Sample list SHA-256")
    def sample_list_hash(self, obj):
        return _short(obj.sample_list_sha256)

    @admin.display(description="Manifest SHA-256")
    def manifest_hash(self, obj):
        return _short(obj.manifest_sha256)

    @admin.display(description="Bundle")
    def download(self, obj):
        url = reverse(self.download_url_name, args=[obj.pk])
        return format_html('<a href="{}">download .zip</a>', url)


# --- Releases ---------------------------------------------------------------------------------


class ReleaseFreezeForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="For example egointent_v1")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    parent = forms.ModelChoiceField(
        queryset=Release.objects.filter(frozen_at__isnull=False),
        required=False,
        help_text="Set it to freeze a correction of that release",
    )
    allow_incomplete = forms.BooleanField(
        required=False, help_text="Freeze even if some steps still miss a label"
    )


@admin.register(Release)
class ReleaseAdmin(_SealedAdmin):
    list_display = (
        "name",
        "sample_count",
        "sample_list_hash",
        "manifest_hash",
        "parent",
        "origin",
        "frozen_at",
        "download",
    )
    readonly_fields = (
        "name",
        "parent",
        "note",
        "origin",
        "sample_count",
        "sample_list_sha256",
        "records_sha256",
        "manifest_sha256",
        "manifest_text",
        "frozen_at",
        "frozen_by",
    )
    change_list_template = "admin/review/release_change_list.html"

    download_url_name = "admin:annotation_release_download"

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("freeze/", wrap(self.freeze_view), name="annotation_release_freeze"),
            path(
                "<int:pk>/download/",
                wrap(self.download_view),
                name="annotation_release_download",
            ),
            *super().get_urls(),
        ]

    def freeze_view(self, request: HttpRequest) -> HttpResponse:
        _require_admin(request)
        form = ReleaseFreezeForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            values = form.cleaned_data
            try:
                release = release_create(author=request.user, **values)
            except ValidationError as exc:
                for message in exc.messages:
                    form.add_error(None, message)
            else:
                messages.success(
                    request,
                    f"Froze {release.name}: {release.sample_count} steps, manifest SHA-256 "
                    f"{release.manifest_sha256}.",
                )
                return redirect("admin:annotation_release_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Freeze a release",
            "form": form,
        }
        return TemplateResponse(request, "admin/review/freeze_form.html", context)

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        _require_admin(request)
        release = get_object_or_404(Release, pk=pk, frozen_at__isnull=False)
        from review.manifests.services import bundle_zip_file

        return as_download(FileResponse(bundle_zip_file(release=release)), f"{release.name}.zip")


# --- Sample designs ---------------------------------------------------------------------------


class SampleDesignForm(forms.ModelForm):
    class Meta:
        model = SampleDesign
        fields = ("name", "kind", "method", "release", "seed", "params")

    seed = forms.IntegerField(
        min_value=0,
        max_value=MAX_SAFE_INTEGER,
        initial=lambda: secrets.randbelow(MAX_SAFE_INTEGER + 1),
        help_text=f"A whole number from 0 to {MAX_SAFE_INTEGER:,}. A random one is filled in; "
        "the same seed on the same release always draws the same samples.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["release"].queryset = Release.objects.filter(frozen_at__isnull=False)
        self.fields["params"].help_text = (
            'For example {"target_n": 756} (stratified), {"scene_quota": 21, "scene_extra": '
            '["indoor/kitchen"], "bin_targets": [90, 80, 75, 75]} (quota) or {"n_groups": 4} '
            "(complete groups). Defaults are filled in on save; see docs/manifests.md."
        )

    def clean(self):
        data = super().clean()
        if data.get("method") and isinstance(data.get("params"), dict):
            try:
                from review.manifests.services import design_params

                data["params"] = design_params(method=data["method"], params=data["params"])
            except ValidationError as exc:
                raise forms.ValidationError(exc.messages) from None
        elif data.get("method"):
            self.add_error("params", "Must be a JSON object.")
        return data


@admin.register(SampleDesign)
class SampleDesignAdmin(admin.ModelAdmin):
    form = SampleDesignForm
    list_display = ("name", "kind", "method", "release", "seed", "updated_at", "preview_link")
    list_filter = ("kind", "method")
    change_form_template = "admin/review/design_change_form.html"

    @admin.display(description="Preview")
    def preview_link(self, obj):
        url = reverse("admin:review_sampledesign_preview", args=[obj.pk])
        return format_html('<a href="{}">preview and freeze</a>', url)

    def has_delete_permission(self, request, obj=None) -> bool:
        # A design that produced a manifest is kept (the manifest points at it).
        return obj is None or not obj.manifests.exists()

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<int:pk>/preview/", wrap(self.preview_view), name="review_sampledesign_preview"),
            path(
                "<int:pk>/freeze/",
                wrap(require_POST(self.freeze_view)),
                name="review_sampledesign_freeze",
            ),
            *super().get_urls(),
        ]

    def preview_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require_admin(request)
        design = get_object_or_404(SampleDesign.objects.select_related("release"), pk=pk)
        report, error = None, None
        try:
            from review.manifests.services import design_preview

            report = design_preview(design=design)
        except ValidationError as exc:
            error = " ".join(exc.messages)
        matrix = []
        if report:
            cells = {(r["scene"], r["bin"]): r for r in report["scene_bin"]}
            for row in report["scenes"]:
                matrix.append(
                    {**row, "cells": [cells[(row["scene"], b["index"])] for b in report["bins"]]}
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Preview of {design.name}",
            "design": design,
            "report": report,
            "matrix": matrix,
            "error": error,
            "taken": Manifest.objects.filter(name=design.name).exists(),
        }
        return TemplateResponse(request, "admin/review/design_preview.html", context)

    def freeze_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require_admin(request)
        design = get_object_or_404(SampleDesign, pk=pk)
        try:
            from review.manifests.services import manifest_freeze

            manifest = manifest_freeze(
                design=design, author=request.user, name=request.POST.get("name") or None
            )
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("admin:review_sampledesign_preview", pk=pk)
        messages.success(
            request,
            f"Froze {manifest.name}: {manifest.sample_count} samples, sample list SHA-256 "
            f"{manifest.sample_list_sha256}, manifest SHA-256 {manifest.manifest_sha256}.",
        )
        return redirect("admin:review_manifest_change", manifest.pk)


# --- Manifests --------------------------------------------------------------------------------


@admin.register(Manifest)
class ManifestAdmin(_SealedAdmin):
    list_display = (
        "name",
        "kind",
        "method",
        "seed",
        "release",
        "sample_count",
        "sample_list_hash",
        "manifest_hash",
        "frozen_at",
        "download",
    )
    list_filter = ("kind", "method")
    readonly_fields = (
        "name",
        "kind",
        "method",
        "seed",
        "release",
        "design",
        "sample_count",
        "sample_list_sha256",
        "records_sha256",
        "manifest_sha256",
        "manifest_text",
        "frozen_at",
        "frozen_by",
        "download",
    )

    download_url_name = "admin:review_manifest_download"

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<int:pk>/download/", wrap(self.download_view), name="review_manifest_download"),
            *super().get_urls(),
        ]

    def download_view(self, request: HttpRequest, pk: int) -> FileResponse:
        _require_admin(request)
        manifest = get_object_or_404(Manifest, pk=pk, frozen_at__isnull=False)
        from review.manifests.services import bundle_zip_file

        response = FileResponse(bundle_zip_file(manifest=manifest))
        return as_download(response, f"{manifest.name}.zip")


def _frozen_times(row) -> bytes | None:
    return row.video_frame_times


@admin.register(ReleaseStep)
class ReleaseStepAdmin(_ReadOnly):
    list_display = ("sample_id", "release", "scene_slug", "position", "start", "cutoff")
    list_filter = ("release", "scene_slug")
    search_fields = ("sample_id", "local_intent", "procedural_intent", "next_step")
    list_select_related = ("release",)
    start = mark_column("start_us", "start", frame_times=_frozen_times)
    cutoff = mark_column("cutoff_us", "cutoff", frame_times=_frozen_times)
    outcome = mark_column("outcome_us", "outcome", frame_times=_frozen_times)
    end = mark_column("end_us", "end", frame_times=_frozen_times)

    def get_queryset(self, request):
        # The frame-time index of the source video, when this instance has it (by SHA-256).
        index = SourceVideo.objects.filter(sha256=OuterRef("video_sha256")).values("frame_times")
        return super().get_queryset(request).annotate(video_frame_times=Subquery(index[:1]))

    def get_fields(self, request, obj=None):
        marks = {
            "start_us": "start",
            "cutoff_us": "cutoff",
            "outcome_us": "outcome",
            "end_us": "end",
        }
        return [marks.get(f.name, f.name) for f in self.model._meta.fields if f.name != "id"]

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)


@admin.register(ManifestSample)
class ManifestSampleAdmin(_ReadOnly):
    list_display = ("sample_id", "manifest", "duration_bin", "group")
    list_filter = ("manifest",)
    search_fields = ("sample_id",)
    list_select_related = ("manifest",)
