"""Forms of the run pages (admins): start predictions."""

from __future__ import annotations

from django import forms

from annotation.models import Release
from annotation.models.releases import NAME_VALIDATOR
from review.models import Manifest
from scoring.models import Endpoint, PromptPackage
from scoring.runs import CONDITIONS
from studio.vocabulary import label

NAME_HELP = "Lower-case letters, digits, '_', '.' and '-'. The same name again resumes the run."


def name_field(max_length: int = 80, help_text: str = NAME_HELP) -> forms.CharField:
    """A name, under the one name rule (NAME_VALIDATOR), as the services check it."""
    return forms.CharField(
        max_length=max_length, validators=[NAME_VALIDATOR], strip=False, help_text=help_text
    )


class PredictForm(forms.Form):
    name = name_field()
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
