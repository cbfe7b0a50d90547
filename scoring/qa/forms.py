"""The form that starts a QA run (admins, on the Runs page)."""

from __future__ import annotations

from django import forms

from review.models import Manifest
from scoring.models import Endpoint, PromptPackage
from scoring.qa.runs import MEDIA
from scoring.runs.forms import name_field
from studio.vocabulary import label


class QaPredictForm(forms.Form):
    name = name_field()
    manifest = forms.ModelChoiceField(
        Manifest.objects.filter(frozen_at__isnull=False, qa_source__isnull=False),
        help_text="A frozen QA manifest: its groups are asked",
    )
    media = forms.ChoiceField(
        choices=[(m, label("qa_media", m)) for m in MEDIA],
        initial="full",
        help_text="What the model gets with the first question; sound needs sources with sound",
    )
    endpoint = forms.ModelChoiceField(Endpoint.objects.all())
    package = forms.ModelChoiceField(PromptPackage.objects.filter(purpose="qa_prediction"))
