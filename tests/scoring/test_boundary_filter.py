"""The boundary study filters its windows by the boundary audit of its manifest: the four-way
valid set when a boundary audit exists, nothing (and a sentence saying so) when none does; the
report names the set it used, its campaign and the set sizes, and a new ruling makes a new
report."""

from __future__ import annotations

import json

import pytest

from review.audit.imports import decisions_load
from review.boundary.kind import SCHEME
from review.boundary.media import available_windows
from review.campaigns.services import campaign_create
from review.manifests.services import design_create, manifest_freeze
from scoring.reports.study import NO_WINDOW_FILTER, study_report
from scoring.studies import study_create
from scoring.studies.scores import study_table, window_filter
from tests.conftest import _user
from tests.scoring.studies import study_release  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def diagnostic(study_release, admin_user):  # noqa: F811
    design = design_create(
        author=admin_user,
        name="diag",
        method="stratified",
        release=study_release,
        seed=3,
        params={"target_n": study_release.sample_count},
        kind="diagnostic",
    )
    return manifest_freeze(design=design, author=admin_user)


def boundary_study(manifest, models, make_endpoint, packages, **kw):
    kw.setdefault("template", "boundary")
    return study_create(
        name="bst",
        manifest=manifest,
        endpoints=models,
        package=packages("frames-prediction"),
        judge_endpoint=make_endpoint("judge", model="stand-in-judge"),
        judge_package=packages("reference-judge"),
        **kw,
    )


def _boundary_campaign(manifest, admin, django_user_model):
    people = [_user(django_user_model, n, "auditor") for n in ("ba", "bb", "bc")]
    campaign = campaign_create(
        name="diag-boundary", kind="boundary", manifest=manifest, people=people, author=admin
    )
    return campaign, people


def _rule(campaign, people, samples, invalid_early=()):
    lines = []
    for sample in samples:
        for window in available_windows(sample.release_step):
            for person in people:
                bad = window == "early" and str(sample.sample_id) in invalid_early
                lines.append(
                    {
                        "kind": "decision",
                        "reviewer": person.username,
                        "step": str(sample.sample_id),
                        "window": window,
                        "label": "invalid" if bad else "valid",
                    }
                )
    decisions_load(campaign=campaign, lines=lines, scheme=SCHEME)


def test_without_a_boundary_audit_nothing_is_filtered_and_the_report_says_so(
    diagnostic, models, make_endpoint, packages
):
    study = boundary_study(diagnostic, models, make_endpoint, packages)
    assert window_filter(study) is None
    assert study_table(study).window_valid is None
    report = json.loads(study_report(study)[0])
    assert report["provenance"]["window_filter"] == NO_WINDOW_FILTER


def test_the_boundary_study_uses_the_four_way_valid_set(
    diagnostic, models, make_endpoint, packages, admin_user, django_user_model
):
    study = boundary_study(diagnostic, models, make_endpoint, packages)
    campaign, people = _boundary_campaign(diagnostic, admin_user, django_user_model)
    samples = list(diagnostic.samples.select_related("release_step").order_by("sample_id"))
    # Three videos of two steps: the second step of each has no Next visible window, so at most
    # the three first steps can be four-way valid; one of them gets an invalid Early.
    firsts = [s for s in samples if "next_visible" in available_windows(s.release_step)]
    assert len(firsts) == 3
    _rule(campaign, people, samples, invalid_early={str(firsts[0].sample_id)})
    found = window_filter(study)
    expected = sorted(str(s.sample_id) for s in firsts[1:])
    assert found["valid"] == expected and found["campaign"] == "diag-boundary"
    table = study_table(study, filter_set=found)
    keep = [item in expected for item in table.items]
    assert table.window_valid.shape == (4, len(samples))
    assert (table.window_valid == keep).all()

    text, _cached = study_report(study)
    report = json.loads(text)
    applied = report["provenance"]["window_filter"]
    assert applied["set"] == "four_way_valid" and applied["campaign"] == "diag-boundary"
    assert (applied["audited"], applied["official_valid"], applied["four_way_valid"]) == (6, 6, 2)
    assert applied["four_way_valid_complete_predictions"] == 0  # nothing was run yet
    removed = {e["condition"]: e["by_reason"] for e in report["exclusions"]}
    assert all(reasons["invalid_window"] == 4 for reasons in removed.values())
    assert study_report(study)[1] is True  # the same set: the cached report

    # An adjudicator's (or a reviewer's) change makes another set, so another report.
    _rule(campaign, people, [firsts[0]])
    again = json.loads(study_report(study)[0])
    assert again["provenance"]["window_filter"]["four_way_valid"] == 3
    assert again["inputs_sha256"] != report["inputs_sha256"]


def test_other_studies_are_not_filtered(
    diagnostic, models, make_endpoint, packages, admin_user, django_user_model
):
    _boundary_campaign(diagnostic, admin_user, django_user_model)
    study = boundary_study(diagnostic, models, make_endpoint, packages, template="history")
    assert window_filter(study) is None


def test_complete_predictions_count_the_filtered_steps_usable_everywhere():
    import numpy as np

    from scoring.reports.study import filter_provenance
    from scoring.stats import Cell, ScoreTable

    m, c, n = 2, 4, 5
    status = np.full((m, c, n), int(Cell.OK), dtype=np.int8)
    status[1, 2, 1] = Cell.API_ERROR  # step 1 lacks a prediction under one condition
    status[0, 0, 2] = Cell.INVALID  # an invalid answer is an answer: step 2 stays
    scores = np.where((status == Cell.OK)[..., None], 50.0, np.nan) * np.ones((1, 1, 1, 3))
    keep = np.array([True, True, True, False, True])
    table = ScoreTable(
        models=("a", "b"),
        conditions=("early", "official", "outcome_visible", "next_visible"),
        dimensions=("local", "procedural", "next"),
        items=np.array(list("vwxyz"), dtype=object),
        videos=np.array(list("ppqqr"), dtype=object),
        scenes=np.array(list("sssss"), dtype=object),
        scores=scores,
        status=status,
        window_valid=np.tile(keep, (c, 1)),
    )
    sets = {"audited": 5, "official_valid": 5, "four_way_valid": 4}
    applied = filter_provenance(
        {"campaign": "x", "state": "open", "valid": [], "sets": sets}, table
    )
    assert applied["four_way_valid_complete_predictions"] == 3  # v, x, z
    assert applied["four_way_valid"] == 4 and applied["campaign_state"] == "open"
    assert filter_provenance(None, table) == NO_WINDOW_FILTER
