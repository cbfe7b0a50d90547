"""Forms of the judge pages (admins): start a judge over a run."""

from __future__ import annotations

from django import forms

from scoring.models import Endpoint, PromptPackage, RunKind
from scoring.runs.forms import name_field


class JudgeForm(forms.Form):
    KINDS = [(k, RunKind(k).label) for k in ("reference", "video", "rater")]
    PACKAGE_OF = {"reference": "reference_judge", "video": "video_judge", "rater": "blind_rater"}
    name = name_field()
    kind = forms.ChoiceField(choices=KINDS)
    endpoint = forms.ModelChoiceField(Endpoint.objects.all())
    package = forms.ModelChoiceField(
        PromptPackage.objects.filter(purpose__in=["reference_judge", "video_judge", "blind_rater"])
    )
    unit = forms.ChoiceField(
        choices=[("candidate", "One candidate per call"), ("step", "All candidates of a step")],
        initial="candidate",
    )

    def __init__(self, *args, qa: bool = False, **kwargs):
        """``qa``: the form of a QA run's page: the QA judge over its open-ended turns."""
        super().__init__(*args, **kwargs)
        if qa:
            self.fields["kind"].choices = [("qa", RunKind.QA.label)]
            self.fields["package"].queryset = PromptPackage.objects.filter(purpose="qa_judge")
            del self.fields["unit"]
