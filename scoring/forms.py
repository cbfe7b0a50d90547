"""Forms of the run pages (admins): start predictions, start a judge."""

from __future__ import annotations

from django import forms

from annotation.models import Release
from review.models import Manifest
from scoring.models import Endpoint, PromptPackage, RunKind
from scoring.runs import CONDITIONS
from studio.vocabulary import label

NAME_HELP = "Lower-case letters, digits, '_', '.' and '-'. The same name again resumes the run."


class PredictForm(forms.Form):
    name = forms.SlugField(max_length=80, help_text=NAME_HELP)
    release = forms.ModelChoiceField(
        Release.objects.filter(frozen_at__isnull=False),
        required=False,
        help_text="The whole release, or choose a manifest",
    )
    manifest = forms.ModelChoiceField(
        Manifest.objects.filter(frozen_at__isnull=False), required=False
    )
    condition = forms.ChoiceField(
        choices=[(c, label("condition", c)) for c in CONDITIONS], initial="official"
    )
    endpoint = forms.ModelChoiceField(Endpoint.objects.all())
    package = forms.ModelChoiceField(PromptPackage.objects.filter(purpose="prediction"))

    def clean(self):
        data = super().clean()
        if bool(data.get("release")) == bool(data.get("manifest")):
            raise forms.ValidationError("Choose a release or a manifest (one of the two).")
        return data


class JudgeForm(forms.Form):
    KINDS = [(k, RunKind(k).label) for k in ("reference", "video", "rater")]
    PACKAGE_OF = {"reference": "reference_judge", "video": "video_judge", "rater": "blind_rater"}
    name = forms.SlugField(max_length=80, help_text=NAME_HELP)
    kind = forms.ChoiceField(choices=KINDS)
    endpoint = forms.ModelChoiceField(Endpoint.objects.all())
    package = forms.ModelChoiceField(
        PromptPackage.objects.filter(purpose__in=["reference_judge", "video_judge", "blind_rater"])
    )
    unit = forms.ChoiceField(
        choices=[("candidate", "One candidate per call"), ("step", "All candidates of a step")],
        initial="candidate",
    )


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
