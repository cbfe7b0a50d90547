"""Admin pages of campaigns: the list with progress, a create form (the same service as
``campaign_create``), and each campaign's live progress page (an HTML fragment polled by
static/js/campaign_progress.js) with its close button. Admin role checked in every view."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from review.campaigns.kinds import campaign_kinds
from review.campaigns.models import (
    Assignment,
    Campaign,
    CampaignItem,
    Exclusion,
    Exposure,
    ItemOrder,
    Submission,
)
from review.campaigns.services import campaign_close, campaign_create, progress
from review.manifests.models import Manifest
from studio.canonical import MAX_SAFE_INTEGER
from studio.roles import is_admin


def _require_admin(request: HttpRequest) -> None:
    if not is_admin(request.user):
        raise PermissionDenied("Only admins manage campaigns.")


class CampaignCreateForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="For example audit_v1")
    kind = forms.ChoiceField(choices=())
    manifest = forms.ModelChoiceField(queryset=Manifest.objects.filter(frozen_at__isnull=False))
    people = forms.ModelMultipleChoiceField(
        queryset=get_user_model().objects.filter(is_active=True).order_by("username"),
        widget=forms.SelectMultiple(attrs={"size": 8}),
    )
    per_item = forms.IntegerField(
        min_value=1, required=False, help_text="Distinct people per item (default: the kind's)"
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=MAX_SAFE_INTEGER,
        required=False,
        help_text="Fixes every person's order (default: the manifest's seed)",
    )
    instructions = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = [(k.name, k.label) for k in campaign_kinds()]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "manifest", "per_item", "state", "done", "live")
    list_filter = ("kind", "state")
    readonly_fields = (
        "name", "kind", "manifest", "per_item", "seed", "instructions", "options", "state",
        "lease_seconds", "created_at", "created_by", "closed_at",
    )  # fmt: skip
    exclude = ("people",)
    change_list_template = "admin/review/campaign_change_list.html"

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # through create_view: the service builds items, orders and exclusions

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        return is_admin(request.user)

    def has_module_permission(self, request) -> bool:
        return is_admin(request.user)

    @admin.display(description="Done")
    def done(self, obj):
        report = progress(campaign=obj)
        return f"{report['done']} / {report['needed']}"

    @admin.display(description="Progress")
    def live(self, obj):
        url = reverse("admin:review_campaign_progress", args=[obj.pk])
        return format_html('<a href="{}">live progress</a>', url)

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("create/", wrap(self.create_view), name="review_campaign_create"),
            path("<int:pk>/progress/", wrap(self.progress_view), name="review_campaign_progress"),
            path(
                "<int:pk>/progress/fragment/",
                wrap(self.fragment_view),
                name="review_campaign_progress_fragment",
            ),
            path(
                "<int:pk>/close/", wrap(require_POST(self.close_view)), name="review_campaign_close"
            ),
            *super().get_urls(),
        ]

    def create_view(self, request: HttpRequest) -> HttpResponse:
        _require_admin(request)
        form = CampaignCreateForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            values = form.cleaned_data
            try:
                campaign = campaign_create(
                    name=values["name"],
                    kind=values["kind"],
                    manifest=values["manifest"],
                    people=list(values["people"]),
                    per_item=values["per_item"],
                    seed=values["seed"],
                    instructions=values["instructions"],
                    author=request.user,
                )
            except ValidationError as exc:
                for field, errors in getattr(exc, "message_dict", {None: exc.messages}).items():
                    for message in errors:
                        form.add_error(field if field in form.fields else None, message)
            else:
                messages.success(request, f"Opened campaign {campaign.name}.")
                return redirect("admin:review_campaign_progress", campaign.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Open a campaign",
            "form": form,
        }
        return TemplateResponse(request, "admin/review/campaign_create.html", context)

    def _context(self, request, pk: int) -> dict:
        campaign = get_object_or_404(Campaign.objects.select_related("manifest"), pk=pk)
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Campaign {campaign.name}",
            "campaign": campaign,
            "report": progress(campaign=campaign),
        }

    def progress_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require_admin(request)
        return TemplateResponse(
            request, "admin/review/campaign_progress.html", self._context(request, pk)
        )

    def fragment_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require_admin(request)
        return TemplateResponse(
            request, "admin/review/campaign_progress_fragment.html", self._context(request, pk)
        )

    def close_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        _require_admin(request)
        campaign = get_object_or_404(Campaign, pk=pk)
        campaign_close(campaign=campaign)
        messages.success(request, f"Closed campaign {campaign.name}.")
        return redirect("admin:review_campaign_progress", campaign.pk)


class _CampaignRowsAdmin(admin.ModelAdmin):
    """Rows the services write (items, orders, exclusions, assignments, submissions, exposure):
    visible to admins, never added, changed or deleted by hand."""

    list_select_related = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        return is_admin(request.user)

    def has_module_permission(self, request) -> bool:
        return is_admin(request.user)


@admin.register(CampaignItem)
class CampaignItemAdmin(_CampaignRowsAdmin):
    list_display = ("id", "campaign", "sample")
    list_filter = ("campaign",)


@admin.register(ItemOrder)
class ItemOrderAdmin(_CampaignRowsAdmin):
    list_display = ("campaign", "person", "item", "key")
    list_filter = ("campaign",)


@admin.register(Exclusion)
class ExclusionAdmin(_CampaignRowsAdmin):
    list_display = ("campaign", "person", "item", "reason")
    list_filter = ("campaign",)


@admin.register(Assignment)
class AssignmentAdmin(_CampaignRowsAdmin):
    list_display = ("id", "campaign", "person", "item", "state", "committed", "lease_expires_at")
    list_filter = ("campaign", "state")
    exclude = ("token",)  # the token is the person's key to the item: not shown even to admins


@admin.register(Submission)
class SubmissionAdmin(_CampaignRowsAdmin):
    list_display = ("id", "campaign", "person", "item", "part", "supersedes", "created_at")
    list_filter = ("campaign", "part")


@admin.register(Exposure)
class ExposureAdmin(_CampaignRowsAdmin):
    list_display = ("id", "campaign", "person", "item", "part", "created_at")
    list_filter = ("campaign", "part")
