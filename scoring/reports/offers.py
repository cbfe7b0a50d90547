"""What a report page proposes when its numbers wait for a judge run: the judge to start, with a
free run name, the endpoint and the package already chosen, so an admin starts it with one
click (or changes the choice first). Pages render an offer with ``scoring/_judge_offer.html``;
its form posts to the page's own judge view, which calls ``judge_start``."""

from __future__ import annotations

from dataclasses import dataclass, field

from django import forms

from scoring.judges.services import PURPOSE
from scoring.models import Endpoint, PromptPackage, Run, RunKind
from studio.vocabulary import in_sentence, label


@dataclass
class JudgeOffer:
    kind: str  # a judge RunKind
    why: str  # what waits for it, in a sentence
    action: str  # the URL the form posts to
    form: forms.Form
    hidden: dict = field(default_factory=dict)  # further fields the judge view reads

    @property
    def kind_name(self) -> str:
        """The judge's name inside a sentence ("reference-based judge", "blind LLM rater")."""
        return in_sentence(label("run_kind", self.kind))


class JudgeOfferForm(forms.Form):
    name = forms.SlugField(
        max_length=80, help_text="A new name starts a new run; an existing one resumes it."
    )
    endpoint = forms.ModelChoiceField(Endpoint.objects.order_by("name"), label="Judge endpoint")
    package = forms.ModelChoiceField(PromptPackage.objects.none(), label="Package")

    def __init__(self, *args, kind: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        self.fields["package"].queryset = PromptPackage.objects.filter(
            purpose=PURPOSE[kind]
        ).order_by("name", "-version")


def free_name(base: str) -> str:
    """``base``, or ``base-2``, ``base-3`` ... : the first name no run has."""
    base = base[:74]
    taken = set(Run.objects.filter(name__startswith=base).values_list("name", flat=True))
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _choices(kind: str, previous: Run | None) -> dict:
    """The endpoint and package to preselect: the previous judge run's; else the newest run of
    this kind anywhere; else the endpoint of the newest judge run of any kind (a judge endpoint)
    and our builtin package."""
    newest = Run.objects.order_by("-created_at", "-pk")
    model = previous or newest.filter(kind=kind).first()
    if model is not None:
        return {"endpoint": model.endpoint_id, "package": model.package_id}
    judge = newest.filter(kind__in=list(PURPOSE)).first()
    endpoint = judge.endpoint if judge else Endpoint.objects.order_by("name").first()
    package = (
        PromptPackage.objects.filter(purpose=PURPOSE[kind])
        .order_by("-builtin", "name", "-version")
        .first()
    )
    return {
        "endpoint": endpoint.pk if endpoint else None,
        "package": package.pk if package else None,
    }


def judge_offer(
    *, kind: str, why: str, action: str, base_name: str, previous: Run | None = None, **hidden
) -> JudgeOffer:
    if kind not in PURPOSE:
        raise ValueError(f"no judge of kind {kind!r}")
    initial = {"name": free_name(base_name), **_choices(kind, previous)}
    return JudgeOffer(
        kind=kind,
        why=why,
        action=action,
        form=JudgeOfferForm(initial=initial, kind=kind, auto_id=f"offer-{base_name}-%s"),
        hidden={"kind": kind, **hidden},
    )


def reference_offers_for_runs(runs, *, why: str) -> list[JudgeOffer]:
    """One offer per prediction run that no reference judge has scored: the run page's judge
    form, the reference judge preselected."""
    from django.urls import reverse

    return [
        judge_offer(
            kind=RunKind.REFERENCE,
            why=why.format(run=run.name),
            action=reverse("scoring:run-judge", args=[run.pk]),
            base_name=f"{run.name}-reference",
            unit="candidate",
        )
        for run in runs
    ]


def baseline_offers(campaign, report: dict | None) -> list[JudgeOffer]:
    """A human baseline's waiting scores: the raters' answers no judge run has scored yet (the
    human scores count only judged answers), and the prediction runs on its steps without a
    reference judge (no matched model score)."""
    from django.urls import reverse

    from scoring.judges.subjects import SubjectError, subjects_from_campaign
    from scoring.reports.baseline_inputs import human_judge_run
    from studio.display import count

    if report is None:
        return []
    offers = []
    run = human_judge_run(campaign)
    try:
        subjects, _ = subjects_from_campaign(campaign)
    except SubjectError:
        subjects = []
    judged = set(run.judgements.values_list("subject_key", flat=True)) if run is not None else set()
    waiting = sum(1 for s in subjects if s.key not in judged)
    if waiting:
        offers.append(
            judge_offer(
                kind=RunKind.REFERENCE,
                why=f"{count(waiting, 'answer', 'answers')} of {len(subjects)} wait for a "
                "judge run: the human scores below count only the judged ones.",
                action=reverse("scoring:baseline-judge", args=[campaign.pk]),
                base_name=f"{campaign.name}-judge",
                previous=run,
            )
        )
    unjudged = [s["run"] for s in report.get("model_runs", []) if not s.get("judge")]
    offers += reference_offers_for_runs(
        Run.objects.filter(name__in=unjudged).order_by("name"),
        why="{run} predicted these steps, but no reference judge has scored it: its matched "
        "score waits for one.",
    )
    return offers


def judgeval_offers(campaign, report: dict) -> list[JudgeOffer]:
    """Judge validation compares the automatic judges with the humans: each judge kind (the
    reference judge, the blind LLM rater) that has not scored the campaign's predictions."""
    from django.urls import reverse

    judged_by = Run.objects.filter(name__in=[j["judge"] for j in report["judges"]])
    have = set(judged_by.values_list("kind", flat=True))
    return [
        judge_offer(
            kind=kind,
            why=f"No {in_sentence(label('run_kind', kind))} has scored these predictions yet.",
            action=reverse("scoring:judgeval-judge", args=[campaign.pk]),
            base_name=f"{campaign.name}-{kind}",
        )
        for kind in (RunKind.REFERENCE, RunKind.RATER)
        if kind not in have
    ]


def judge_from_offer(request, *, kind: str, back: str, **subjects):
    """The POST of an offer's form: start (or resume) the judge over ``subjects`` (``runs=`` or
    ``campaign=``, as ``judge_start`` takes them) and open its run page; a bad choice or a
    refused start goes back to ``back`` with the reason, each field named as the form shows."""
    from django.contrib import messages
    from django.shortcuts import redirect

    from scoring.judges.services import judge_start
    from scoring.runs import RunError
    from studio.display import form_problems

    form = JudgeOfferForm(request.POST, kind=kind)
    if not form.is_valid():
        messages.error(request, f"The judge was not started: {form_problems(form)}")
        return redirect(back)
    data = form.cleaned_data
    try:
        run = judge_start(
            name=data["name"],
            kind=kind,
            endpoint=data["endpoint"],
            package=data["package"],
            user=request.user,
            **subjects,
        )
    except RunError as exc:
        messages.error(request, f"The judge was not started: {exc}")
        return redirect(back)
    messages.success(request, f"Judge run {run.name} started; the report counts it when done.")
    return redirect("scoring:run-detail", run.pk)
