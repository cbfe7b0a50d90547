"""Forms of the judge pages (admins): start a judge over a run."""

from __future__ import annotations

from django import forms

from scoring.models import Endpoint, PromptPackage, Run, RunKind
from scoring.models.runs import JUDGE_KINDS
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
        """``qa``: the form of a QA run's page: the QA judge over its open-ended turns.

        Unbound, the form comes filled in for its first kind: the newest package of that kind's
        purpose, and the endpoint the newest judge run of that kind used (of any kind when none)."""
        super().__init__(*args, **kwargs)
        if qa:
            self.fields["kind"].choices = [("qa", RunKind.QA.label)]
            self.fields["package"].queryset = PromptPackage.objects.filter(purpose="qa_judge")
            del self.fields["unit"]
        if not self.is_bound:
            self._preselect(self.fields["kind"].choices[0][0])

    def _preselect(self, kind: str) -> None:
        purpose = "qa_judge" if kind == "qa" else self.PACKAGE_OF[kind]
        package = PromptPackage.objects.filter(purpose=purpose).order_by("-id").first()
        judges = Run.objects.filter(kind__in=JUDGE_KINDS).order_by("-id")
        endpoint_id = (
            judges.filter(kind=kind).values_list("endpoint_id", flat=True).first()
            or judges.values_list("endpoint_id", flat=True).first()
        )
        self.initial.setdefault("kind", kind)
        if package is not None:
            self.initial.setdefault("package", package.pk)
        if endpoint_id is not None:
            self.initial.setdefault("endpoint", endpoint_id)
