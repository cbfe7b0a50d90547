"""The annotation pages: my videos with their progress, the workspace shell (data as JSON, no
inline script, enforced CSP), the history page, and the player's media endpoints."""

from __future__ import annotations

import gzip
import json
import re
import zlib

from annotation.models import VideoAssignment
from annotation.services import step_create, step_update

S = 1_000_000
API = "/api/annotation"


def steps(video, author, n, **labels):
    return [
        step_create(
            video=video,
            author=author,
            start_us=2 * i * S,
            cutoff_us=(2 * i + 1) * S,
            outcome_us=(2 * i + 1) * S,
            end_us=(2 * i + 2) * S,
            **labels,
        )
        for i in range(n)
    ]


def page_config(html: str) -> dict:
    """The workspace's page data: the JSON block the page script reads."""
    block = r'<script id="workspace-config" type="application/json">(.*?)</script>'
    return json.loads(re.search(block, html, re.S)[1])


def test_my_videos_lists_steps_labelled_share_and_open_problems(
    client, video, make_video, annotator, other_annotator
):
    full = {"local_intent": "a", "procedural_intent": "b", "next_step": "c"}
    steps(video, annotator, 3, **full)
    step_create(
        video=video,
        author=annotator,
        start_us=20 * S,
        cutoff_us=21 * S,
        outcome_us=21 * S,
        end_us=22 * S,
        local_intent="only this",
    )
    theirs = make_video(title="theirs.mp4")
    VideoAssignment.objects.create(video=theirs, annotator=other_annotator)
    client.force_login(annotator)
    html = client.get("/annotate/").content.decode()
    assert "theirs.mp4" not in html
    row = re.search(rf'<tr data-video="{video.pk}" data-editable="true">(.*?)</tr>', html, re.S)[1]
    assert re.search(r'data-col="steps">4<', row)
    assert re.search(r'data-col="labelled">75 %<', row)
    assert "2 labels missing" in row
    assert f'href="/annotate/videos/{video.pk}/"' in row


def test_the_workspace_page_passes_its_data_as_json_and_runs_no_inline_script(
    client, video, annotator
):
    client.force_login(annotator)
    r = client.get(f"/annotate/videos/{video.pk}/")
    assert r.status_code == 200
    policy = r["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy
    html = r.content.decode()
    config = page_config(html)
    assert config["videoId"] == video.pk
    assert config["urls"]["workspace"] == f"{API}/videos/{video.pk}/workspace/"
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    for attributes, body in scripts:
        assert 'type="application/json"' in attributes or (
            'type="module"' in attributes and "src=" in attributes and not body.strip()
        )


def test_the_history_page_shows_who_why_and_the_diff(client, video, annotator):
    (step,) = steps(video, annotator, 1, local_intent="cut the bread")
    step_update(
        step=step,
        author=annotator,
        version=1,
        values={"local_intent": "slice bread"},
        reason="shorter",
    )
    client.force_login(annotator)
    html = client.get(f"/annotate/steps/{step.pk}/history/").content.decode()
    assert "v2 · Edited · anna" in html and "shorter" in html
    assert f"<h1>Step 1 of {video.title} — history</h1>" in html
    assert (
        '<th>Local intent</th><td class="before">cut the bread</td><td class="after">slice bread'
        in html
    )
    assert "<th>Start</th>" in html and "<th>start_us</th>" not in html
    when = re.search(r'<time datetime="([^"]+)" data-moment>([^<]+)</time>', html)
    assert when
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", when[1])
    # To the second, in the display time zone, with its name (UTC here: no cookie).
    assert when[2] == when[1][:10] + " " + when[1][11:19] + " UTC"


def test_workspace_load_takes_a_fixed_number_of_queries(
    login, video, annotator, django_assert_max_num_queries
):
    steps(video, annotator, 25)
    anna = login(annotator)
    # 8, and two for the exposure rule: whether the user has blind work now, and the one insert
    # that logs the steps shown (docs/review.md)
    with django_assert_max_num_queries(10):
        r = anna.get(f"{API}/videos/{video.pk}/workspace/")
    assert r.status_code == 200 and len(r.json()["steps"]) == 25


def test_frame_times_are_the_index_and_revalidate_by_etag(login, video, annotator):
    anna = login(annotator)
    r = anna.get(f"{API}/videos/{video.pk}/frame-times/")
    body = r.json()
    assert body["count"] == video.frame_count == len(body["frame_times_us"])
    assert body["frame_times_us"] == video.frame_times_us().tolist()
    again = anna.get(f"{API}/videos/{video.pk}/frame-times/", HTTP_IF_NONE_MATCH=r["ETag"])
    assert again.status_code == 304
    zipped = anna.get(f"{API}/videos/{video.pk}/frame-times/", HTTP_ACCEPT_ENCODING="gzip, br")
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert json.loads(gzip.decompress(zipped.content)) == body
    assert len(zipped.content) < len(r.content) / 3


DELTAS = "application/vnd.intent-studio.frame-deltas"


def test_frame_times_compact_form_is_the_stored_deltas(login, video, annotator):
    import numpy as np

    anna = login(annotator)
    r = anna.get(f"{API}/videos/{video.pk}/frame-times/", HTTP_ACCEPT=DELTAS)
    assert r.status_code == 200 and r["Content-Type"] == DELTAS
    assert int(r["X-Frame-Count"]) == video.frame_count
    deltas = np.frombuffer(zlib.decompress(r.content), dtype="<i8")
    assert np.cumsum(deltas).tolist() == video.frame_times_us().tolist()
    plain = anna.get(f"{API}/videos/{video.pk}/frame-times/")
    assert len(r.content) < len(plain.content) / 20
    # Each form has its own ETag, so a cache never answers one with the other.
    assert r["ETag"] != plain["ETag"] and "Accept" in r["Vary"]
    again = anna.get(
        f"{API}/videos/{video.pk}/frame-times/", HTTP_ACCEPT=DELTAS, HTTP_IF_NONE_MATCH=r["ETag"]
    )
    assert again.status_code == 304
    stale = anna.get(f"{API}/videos/{video.pk}/frame-times/", HTTP_IF_NONE_MATCH=r["ETag"])
    assert stale.status_code == 200 and stale["Content-Type"] == "application/json"


def test_frame_times_errors_are_json_in_the_compact_form_too(login, video, other_annotator):
    r = login(other_annotator).get(f"{API}/videos/{video.pk}/frame-times/", HTTP_ACCEPT=DELTAS)
    assert r.status_code == 404 and r["Content-Type"] == "application/json"
    assert "detail" in r.json()


def test_the_source_is_served_with_ranges_to_the_assignee_only(
    login, scene, annotator, other_annotator, tmp_path
):
    from media.services import video_import
    from tests.synth_cache import synth_video

    made = synth_video(tmp_path / "one.mp4", seconds=1, fps=10, size=(64, 64))
    video = video_import(path=made.path, scene=scene)
    VideoAssignment.objects.create(video=video, annotator=annotator)
    size = made.path.stat().st_size
    anna = login(annotator)
    r = anna.get(f"{API}/videos/{video.pk}/source/", HTTP_RANGE="bytes=0-99")
    assert r.status_code == 206
    assert r["Content-Range"] == f"bytes 0-99/{size}"
    assert b"".join(r.streaming_content) == made.path.read_bytes()[:100]
    assert r["X-Content-Type-Options"] == "nosniff"
    assert login(other_annotator).get(f"{API}/videos/{video.pk}/source/").status_code == 404


EDIT_CONTROLS = (
    "data-nudge=",
    'data-do="create"',
    'data-do="split"',
    'data-do="merge"',
    'data-do="retract"',
    'data-do="preview"',
    'data-action="plausible-add"',
)


def test_the_adjudicator_lists_every_video_and_reads_its_workspace_without_edit_controls(
    client, video, make_video, annotator, other_annotator, adjudicator
):
    (step,) = steps(video, annotator, 1, local_intent="cut the bread")
    theirs = make_video(title="theirs.mp4")
    VideoAssignment.objects.create(video=theirs, annotator=other_annotator)
    client.force_login(adjudicator)
    listing = client.get("/annotate/").content.decode()
    assert "<h1>All videos</h1>" in listing and "theirs.mp4" in listing
    assert listing.count('data-editable="false"') == 2 and 'data-editable="true"' not in listing
    html = client.get(f"/annotate/videos/{video.pk}/").content.decode()
    config = json.loads(
        re.search(
            r'<script id="workspace-config" type="application/json">(.*?)</script>', html, re.S
        )[1]
    )
    assert config["readOnly"] is True
    assert 'data-read-only="true"' in html and "read-only</span>" in html
    for control in EDIT_CONTROLS:
        assert control not in html, control
    assert html.count("readonly></textarea>") == 3
    history = client.get(f"/annotate/steps/{step.pk}/history/")
    assert history.status_code == 200 and "cut the bread" in history.content.decode()


def test_the_assignee_gets_every_edit_control(client, video, annotator):
    client.force_login(annotator)
    html = client.get(f"/annotate/videos/{video.pk}/").content.decode()
    assert 'data-read-only="false"' in html and "readonly" not in html
    for control in EDIT_CONTROLS:
        assert control in html, control
