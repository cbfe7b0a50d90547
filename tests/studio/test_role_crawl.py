"""Crawl every URL of the project as each role that must not see annotation data, with every
existing object id filled in, and check that nothing hidden comes back."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from annotation.models import VideoAssignment
from annotation.releases import release_freeze
from annotation.services import step_create

S = 1_000_000
SECRET = "zebra-lid-7731"  # a label nobody outside annotation may read
# Pages any logged-in user may open: they show nothing but the user's own (here empty) work.
OPEN_TO_EVERY_USER = {
    "",
    "healthz",
    "login/",
    "logout/",
    "api/schema/",
    "api/docs/",
    "annotate/",
    "api/annotation/ping/",
}


def _routes(resolver=None, prefix=""):
    """Every route string of the project (admin excluded: it has its own staff gate)."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if not isinstance(entry.pattern, RoutePattern):
            continue
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if route.startswith("admin/"):
                continue
            yield from _routes(entry, route)
        elif isinstance(entry, URLPattern):
            yield route


def _fill(route: str, ids: list[int]) -> list[str]:
    if "<" not in route:
        return ["/" + route]
    urls = []
    for value in ids:
        url = re.sub(r"<int:[^>]+>", str(value), route)
        url = re.sub(r"<(?:str|slug|path|uuid):[^>]+>", "x" * 8, url)
        urls.append("/" + url)
    return urls


@pytest.fixture
def hidden_world(make_video, annotator, admin_user):
    video = make_video(title="hidden-video-title.mp4")
    VideoAssignment.objects.create(video=video, annotator=annotator)
    steps = [
        step_create(
            video=video,
            author=annotator,
            start_us=i * 2 * S,
            cutoff_us=i * 2 * S + S,
            outcome_us=i * 2 * S + S,
            end_us=(i + 1) * 2 * S,
            local_intent=SECRET,
            procedural_intent=SECRET,
            next_step=SECRET,
            plausible_next_steps=[SECRET],
        )
        for i in range(3)
    ]
    release = release_freeze(name="hidden_release", author=admin_user)
    _model_run(release, steps)
    return video, steps


def _model_run(release, steps):
    """A finished prediction run and a judge run whose texts carry the secret."""
    from scoring.models import Endpoint, Judgement, PromptPackage, Run, RunItem
    from scoring.packages import package_resolve, packages_sync_builtin

    packages_sync_builtin()
    endpoint = Endpoint.objects.create(
        name="hidden-endpoint", base_url="http://127.0.0.1:9/v1", model=f"model-{SECRET}"
    )
    prediction = {"local_intent": SECRET, "procedural_intent": SECRET, "next_step": SECRET}
    run = Run.objects.create(
        name="hidden-run",
        kind="prediction",
        release=release,
        condition="official",
        endpoint=endpoint,
        package=package_resolve("official-prediction"),
        status="finished",
    )
    judge = Run.objects.create(
        name="hidden-judge",
        kind="reference",
        endpoint=endpoint,
        package=package_resolve("reference-judge"),
        status="finished",
    )
    for i, step in enumerate(steps):
        item = RunItem.objects.create(
            run=run,
            position=i,
            key=str(step.uid),
            sample_id=step.uid,
            state="done",
            outcome="ok",
            prediction=prediction,
            raw_response=SECRET,
        )
        unit = RunItem.objects.create(
            run=judge, position=i, key=f"unit-{i}", state="done", outcome="ok", raw_response=SECRET
        )
        Judgement.objects.create(
            run=judge,
            item=unit,
            subject_kind="prediction",
            subject_key=f"hidden-run:{step.uid}",
            prediction=item,
            candidate_id="C01",
            position=0,
            candidate=prediction,
            reference={"local_intent": SECRET},
            outcome="ok",
            local=50,
            procedural=50,
            next=0,
            justification=SECRET,
        )
    assert PromptPackage.objects.exists()
    from scoring.models import Study, StudyModel, StudyRun

    study = Study.objects.create(
        name="hidden-study",
        template="custom",
        release=release,
        conditions=["official"],
        package=package_resolve("official-prediction"),
        judge_endpoint=endpoint,
        judge_package=package_resolve("reference-judge"),
        contrasts=[],
    )
    StudyModel.objects.create(study=study, endpoint=endpoint, position=0)
    StudyRun.objects.create(study=study, condition="official", endpoint=endpoint, run=run)
    StudyRun.objects.create(study=study, condition="official", endpoint=None, run=judge)
    _qa_audit(run, judge)


def _qa_audit(run, judge):
    """A stored QA audit whose evidence names the secret (its pages are the admin's alone)."""
    from review.models import Manifest
    from scoring.models import QaAudit

    manifest = Manifest.objects.create(
        name="hidden-qa-manifest", kind="qa_review", method="complete_groups", seed=1
    )
    vote = {"flag": "language_shortcut", "conditions": ["text_only"], "voters": [SECRET],
            "correct": [SECRET]}  # fmt: skip
    audit = QaAudit.objects.create(
        name="hidden-audit",
        manifest=manifest,
        inputs=[{"model": SECRET, "condition": "text_only", "run": run.name, "run_id": run.pk,
                 "judge_run": judge.name, "judge_run_id": judge.pk}],
        result={"groups": [{"group": "00000000-0000-4000-8000-000000000001",
                            "modality": "visual", "structure": "node",
                            "category": "action_status", "flags": ["language_shortcut"],
                            "votes": [vote], "verdicts": {}}],
                "counts": {"language_shortcut": 1, "redundant_modality": 0,
                           "mislabelled_modality": 0, "any": 1}},
        filter_sha256="0" * 64,
    )  # fmt: skip
    audit.runs.set([run, judge])


@pytest.mark.parametrize("role", ["rater", "auditor", "other_annotator"])
def test_roles_without_access_reach_no_hidden_data(client, request, hidden_world, role):
    user = request.getfixturevalue(role)
    client.force_login(user)
    video, steps = hidden_world
    from scoring.models import Run, RunItem, Study

    run_ids = list(Run.objects.values_list("pk", flat=True))
    item_ids = list(RunItem.objects.values_list("pk", flat=True))
    study_ids = list(Study.objects.values_list("pk", flat=True))
    from scoring.models import QaAudit

    audit_ids = list(QaAudit.objects.values_list("pk", flat=True))
    ids = sorted({video.pk, *(s.pk for s in steps), *run_ids, *item_ids, *study_ids, *audit_ids,
                  1, 2, 3})  # fmt: skip
    reached = []
    for route in _routes():
        for url in _fill(route, ids):
            response = client.get(url)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            assert SECRET.encode() not in body, f"{role} read a hidden label at {url}"
            assert b"hidden-video-title" not in body, f"{role} saw a video title at {url}"
            if response.status_code == 200 and route not in OPEN_TO_EVERY_USER:
                reached.append(url)
    assert reached == [], f"{role} reached {reached}"


def test_anonymous_visitors_reach_only_login_and_health(client, hidden_world):
    video, steps = hidden_world
    for route in _routes():
        for url in _fill(route, [video.pk, steps[0].pk]):
            response = client.get(url)
            if route in ("login/", "healthz", "favicon.ico"):
                continue
            assert response.status_code in (302, 401, 403, 404, 405), (url, response.status_code)
