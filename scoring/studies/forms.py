"""Forms of the study pages (admins): create a study from a template."""

from __future__ import annotations

from django import forms

from annotation.models import Release
from review.models import Manifest
from scoring.models import Endpoint, PromptPackage


class StudyForm(forms.Form):
    from scoring.models import StudyTemplate

    name = forms.SlugField(max_length=40, help_text="Lower-case letters, digits, '_', '.', '-'")
    template = forms.ChoiceField(
        choices=[c for c in StudyTemplate.choices if c[0] != "custom"], initial="evidence"
    )
    release = forms.ModelChoiceField(
        Release.objects.filter(frozen_at__isnull=False),
        required=False,
        help_text="The whole release, or choose a manifest",
    )
    manifest = forms.ModelChoiceField(
        Manifest.objects.filter(frozen_at__isnull=False), required=False
    )
    endpoints = forms.ModelMultipleChoiceField(Endpoint.objects.all(), help_text="The models")
    package = forms.ModelChoiceField(PromptPackage.objects.filter(purpose="prediction"))
    judge_endpoint = forms.ModelChoiceField(Endpoint.objects.all())
    judge_package = forms.ModelChoiceField(PromptPackage.objects.filter(purpose="reference_judge"))
    bootstrap_seed = forms.IntegerField(initial=0, min_value=0, max_value=2**53 - 1)
    replicates = forms.IntegerField(initial=2000, min_value=1, max_value=100_000)

    def clean(self):
        data = super().clean()
        if bool(data.get("release")) == bool(data.get("manifest")):
            raise forms.ValidationError("Choose a release or a manifest (one of the two).")
        return data
