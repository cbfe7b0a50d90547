"""Admin pages: endpoints are configured here (admins only); packages, runs, items,
judgements, studies and stored reports are read-only records (runs and studies are worked from
their own pages)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.html import format_html

from scoring.endpoints import endpoint_validate
from scoring.models import (
    Endpoint,
    FileDigest,
    ImportedBenchmark,
    ImportedMedium,
    Judgement,
    PromptPackage,
    QaAudit,
    ReportCache,
    Run,
    RunItem,
    Study,
    StudyModel,
    StudyRun,
    TextEmbedding,
)


class EndpointForm(forms.ModelForm):
    class Meta:
        model = Endpoint
        fields = (
            "name",
            "base_url",
            "model",
            "api_key_env",
            "media",
            "frames",
            "json_schema",
            "open_weights",
            "max_concurrency",
            "rpm",
            "tpm",
            "max_attempts",
            "timeout_seconds",
            "note",
        )
        help_texts = {
            "api_key_env": "The NAME of the worker's environment variable that holds the key, "
            "for example OPENAI_API_KEY. The key itself is never stored here.",
        }

    def clean(self):
        data = super().clean()
        probe = Endpoint(
            **{k: v for k, v in data.items() if k in {f.name for f in Endpoint._meta.fields}}
        )
        probe.pk = self.instance.pk
        try:
            endpoint_validate(probe)
        except ValidationError as exc:
            raise ValidationError(exc.message_dict) from None
        data["base_url"] = probe.base_url
        return data


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = (
        "name",
        "model",
        "base_url",
        "media",
        "json_schema",
        "open_weights",
        "max_concurrency",
        "rpm",
        "tpm",
    )
    search_fields = ("name", "model", "base_url")

    def has_delete_permission(self, request, obj=None):
        return obj is None or not obj.runs.exists()


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PromptPackage)
class PromptPackageAdmin(ReadOnly):
    list_display = ("name", "version", "purpose", "sha256", "builtin", "registered_at")
    list_filter = ("purpose", "builtin")
    readonly_fields = [f.name for f in PromptPackage._meta.fields]


def _page(obj) -> str:
    return format_html(
        '<a href="{}">open the run page</a>', reverse("scoring:run-detail", args=[obj.pk])
    )


@admin.register(Run)
class RunAdmin(ReadOnly):
    list_display = (
        "name",
        "kind",
        "status",
        "endpoint",
        "package",
        "condition",
        "created_at",
        "page",
    )
    list_filter = ("kind", "status")
    search_fields = ("name",)
    readonly_fields = ("page", *[f.name for f in Run._meta.fields])

    @admin.display(description="page")
    def page(self, obj) -> str:
        return _page(obj)


@admin.register(RunItem)
class RunItemAdmin(ReadOnly):
    list_display = ("run", "position", "key", "state", "outcome", "requests", "finished_at")
    list_filter = ("state", "outcome")
    list_select_related = ("run",)
    readonly_fields = [f.name for f in RunItem._meta.fields]


@admin.register(Judgement)
class JudgementAdmin(ReadOnly):
    list_display = (
        "run",
        "subject_kind",
        "subject_key",
        "candidate_id",
        "outcome",
        "local",
        "procedural",
        "next",
        "gf",
        "correct",
        "score",
    )
    list_filter = ("outcome", "subject_kind")
    list_select_related = ("run",)
    readonly_fields = [f.name for f in Judgement._meta.fields]


@admin.register(Study)
class StudyAdmin(ReadOnly):
    list_display = ("name", "template", "release", "manifest", "created_at", "page")
    list_filter = ("template",)
    search_fields = ("name",)
    readonly_fields = ("page", *[f.name for f in Study._meta.fields])

    @admin.display(description="page")
    def page(self, obj) -> str:
        return format_html(
            '<a href="{}">open the study page</a>', reverse("scoring:study-detail", args=[obj.pk])
        )


@admin.register(StudyModel)
class StudyModelAdmin(ReadOnly):
    list_display = ("study", "position", "endpoint")
    list_select_related = ("study", "endpoint")
    readonly_fields = [f.name for f in StudyModel._meta.fields]


@admin.register(StudyRun)
class StudyRunAdmin(ReadOnly):
    list_display = ("study", "condition", "endpoint", "run")
    list_select_related = ("study", "endpoint", "run")
    readonly_fields = [f.name for f in StudyRun._meta.fields]


@admin.register(ReportCache)
class ReportCacheAdmin(ReadOnly):
    """Stored reports (the body is the report's JSON exactly as served)."""

    list_display = ("kind", "subject", "inputs_sha256", "computed_at")
    list_filter = ("kind",)
    search_fields = ("subject", "inputs_sha256")
    readonly_fields = [f.name for f in ReportCache._meta.fields]


@admin.register(QaAudit)
class QaAuditAdmin(ReadOnly):
    """Shortcut and modality audits (written once; their page shows the flags)."""

    list_display = ("name", "manifest", "filter_sha256", "created_at", "page")
    search_fields = ("name",)
    readonly_fields = ("page", *[f.name for f in QaAudit._meta.fields])

    @admin.display(description="page")
    def page(self, obj) -> str:
        return format_html(
            '<a href="{}">open the audit page</a>', reverse("scoring:qa-audit", args=[obj.pk])
        )


@admin.register(FileDigest)
class FileDigestAdmin(ReadOnly):
    """SHA-256 of media files as they were when a run hashed them (kept while unchanged)."""

    list_display = ("path", "sha256", "size", "recorded_at")
    search_fields = ("path", "sha256")
    readonly_fields = [f.name for f in FileDigest._meta.fields]


@admin.register(TextEmbedding)
class TextEmbeddingAdmin(ReadOnly):
    """Embeddings of baseline answers under one similarity version (computed once, reused)."""

    list_display = ("version", "text_sha256", "created_at")
    search_fields = ("version", "text_sha256")
    readonly_fields = [f.name for f in TextEmbedding._meta.fields]


@admin.register(ImportedBenchmark)
class ImportedBenchmarkAdmin(ReadOnly):
    """Published benchmark folders imported into this instance (`import_benchmark`)."""

    list_display = ("name", "kind", "manifest_sha256", "imported_at", "imported_by")
    search_fields = ("name", "manifest_sha256", "sample_list_sha256")
    readonly_fields = [f.name for f in ImportedBenchmark._meta.fields]


@admin.register(ImportedMedium)
class ImportedMediumAdmin(ReadOnly):
    """Media files an imported benchmark brought, by sample and column (stored by content)."""

    list_display = ("benchmark", "sample_id", "column", "position", "sha256", "size_bytes")
    list_filter = ("column",)
    search_fields = ("sha256", "path")
    readonly_fields = [f.name for f in ImportedMedium._meta.fields]
