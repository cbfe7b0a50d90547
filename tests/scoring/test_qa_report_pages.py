"""The QA report's page, charts and downloads: for admins only, linked from the Runs page and
a QA run's page, labels instead of codes, and bad input refused with a clear error."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from tests.scoring import qa_report_world as world
from tests.scoring.test_qa_report import report_world  # noqa: F401 - a fixture

REPORT = "/runs/qa/report/"


def _both(report_world):  # noqa: F811
    a, b = (report_world["runs"][k].name for k in "ab")
    return a, b


def test_admin_reads_the_report_with_its_charts(client, admin_user, report_world):  # noqa: F811
    a, b = _both(report_world)
    client.force_login(admin_user)
    # Linked from the Runs page (the chooser) and from a QA run's page (that run).
    assert REPORT in client.get(reverse("scoring:run-list")).content.decode()
    run_page = client.get(reverse("scoring:run-detail", args=[report_world["runs"]["a"].pk]))
    assert f"{REPORT}?runs={a}" in run_page.content.decode()
    chooser = client.get(REPORT).content.decode()
    assert "Choose QA runs" in chooser and a in chooser and b in chooser

    response = client.get(REPORT, {"runs": f"{a},{b}"})
    assert response.status_code == 200
    page = response.content.decode()
    for text in ["Node", "Edge", "Chain", "Loop", "Action status", "World perception",
                 "Goal planning", "Audio-visual", "Turn 2", "Final turn of a multi-turn group",
                 "fewer than 3 questions", f"Paired difference · {a} \u2212 {b}",
                 "Accuracy by model and interaction structure",
                 "Accuracy by model and semantic category",
                 report_world["manifest"].manifest_sha256, "78.57%",
                 "Which turns each got right", "Fleiss' κ"]:  # fmt: skip
        assert text in page, text
    for code in ("action_status", "world_perception", "audio_visual", "multi_turn", "text_only"):
        assert code not in page, code
    # Four charts drawn inline, each also as SVG and as its spec.
    assert page.count('<figure class="chart"') == 4 and page.count("<svg ") >= 4
    for name in ("structure", "category", "turn", "pairs"):
        url = reverse("scoring:qa-run-report-chart", args=[name, "svg"]) + f"?runs={a},{b}"
        svg = client.get(url)
        assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
        spec = client.get(url.replace(".svg", ".json"))
        assert json.loads(spec.content)["$schema"].startswith("https://vega.github.io")
    assert client.get(reverse("scoring:qa-run-report-chart", args=["nope", "svg"])
                      + f"?runs={a}").status_code == 404  # fmt: skip

    # Downloads: the same numbers.
    data = json.loads(client.get(REPORT, {"runs": f"{a},{b}", "format": "json"}).content)
    assert [r["run"] for r in data["runs"]] == [a, b] and data["pairs"][0]["a"] == a
    rate = next(c for c in data["runs"][0]["cells"] if c["stratum"] == "all")["accuracy"]["rate"]
    assert rate == pytest.approx(11 / 14)
    text = client.get(REPORT, {"runs": a, "format": "csv"}).content.decode()
    assert next(csv.reader(io.StringIO(text)))[0] == "section"
    # Another pair order, given explicitly.
    swapped = client.get(REPORT, {"runs": f"{a},{b}", "pair": f"{b},{a}"}).content.decode()
    assert f"Paired difference · {b} \u2212 {a}" in swapped


def test_bad_input_is_a_clear_error(client, admin_user, report_world):  # noqa: F811
    a, _b = _both(report_world)
    client.force_login(admin_user)
    for query, message in [
        ({"runs": "nope"}, "no run named nope"),
        ({"runs": report_world["judges"]["a"].name}, "not a QA run"),
        ({"runs": a, "pair": a}, "a pair is two run names"),
        ({"runs": a, "pair": f"{a},{a}"}, "pairs a run with itself"),
    ]:
        response = client.get(REPORT, query)
        assert response.status_code == 400 and message in response.content.decode(), query
    assert client.get(REPORT, {"runs": a, "format": "xml"}).status_code == 404
    chart = reverse("scoring:qa-run-report-chart", args=["structure", "svg"])
    assert client.get(chart, {"runs": "nope"}).status_code == 404


@pytest.mark.parametrize("role", ["annotator", "auditor", "rater", "adjudicator"])
def test_no_other_role_reaches_the_report(client, request, report_world, role):  # noqa: F811
    a, b = _both(report_world)
    client.force_login(request.getfixturevalue(role))
    urls = [
        REPORT,
        f"{REPORT}?runs={a},{b}",
        f"{REPORT}?runs={a}&format=json",
        f"{REPORT}?runs={a}&format=csv",
        reverse("scoring:qa-run-report-chart", args=["structure", "svg"]) + f"?runs={a}",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 404, url
        assert world.MODELS["a"].encode() not in response.content
