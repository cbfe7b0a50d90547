"""QA runs with sound, against the stand-in provider and real ffmpeg renders of a generated source
whose sound encodes time (a click every 100 ms, media.synth): which media choice sends what for
each endpoint interface, the media hash over exactly the bytes sent, a predictive turn's picture
and sound before its cutoff, the refusal of a silent source, the turn's own evidence window, and
the stand-in's rules on the modalities that arrived."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from media.audio import span_samples
from media.models import RenderedMedia, Scene
from media.services import video_import
from media.synth import CLICK_EVERY_US, read_clicks, read_frame_numbers
from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze
from scoring.models import Outcome, Run, RunItem
from scoring.qa.runs import qa_predict
from scoring.runs import RunError, run_drive
from scoring.runs.media import media_payload, sound_path
from tests.review.qa.helpers import at_frame, evidence, group, jsonl
from tests.scoring.conftest import render_run_media
from tests.synth_cache import synth_video

CUTOFF_FRAME = 65  # 2.1667 s: between the clicks at 2.1 s and 2.2 s


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qa-media-sources")
    return {
        "sound": synth_video(folder / "sound.mp4", seconds=4, fps=30, gop=30, audio=True).path,
        "silent": synth_video(folder / "silent.mp4", seconds=3, fps=30, gop=30).path,
    }


def _import(path, name, user, folder):
    copy = folder / name
    shutil.copyfile(path, copy)
    scene = Scene.objects.get_or_create(
        slug="indoor/tea_room", defaults={"name": "Tea Room", "setting": "indoor"}
    )[0]
    return video_import(path=copy, scene=scene, title=name, user=user)


def _manifest(records, name, user):
    records = sorted(records, key=lambda r: r["uid"])
    group_set, _ = qa_import(text=jsonl(records), name=f"{name}_set", author=user)
    return qa_manifest_freeze(group_set=group_set, name=name, seed=3,
                              params={"n_groups": len(records)}, author=user)  # fmt: skip


@pytest.fixture
def world(db, sources, admin_user, tmp_path):
    video = _import(sources["sound"], "sound-source.mp4", admin_user, tmp_path)
    chain = group(1, video.sha256, structure="chain", turns=2, modality="audio_visual")
    # Turn 1: evidence 30-45 (and a sound 30-40); turn 2: 60-75 and 85-95, predictive at 65.
    chain["turns"][1]["evidence"] = [evidence(60, 75), evidence(85, 95, "auditory", "a knock")]
    chain["turns"][1]["cutoff_us"] = at_frame(CUTOFF_FRAME)
    manifest = _manifest([chain], "qa_sound", admin_user)
    silent_video = _import(sources["silent"], "silent-source.mp4", admin_user, tmp_path)
    silent = group(2, silent_video.sha256)
    mixed = _manifest([group(3, video.sha256), silent], "qa_mixed", admin_user)
    return {"manifest": manifest, "chain": chain, "mixed": mixed, "silent": silent,
            "video": video}  # fmt: skip


def _run(world, make_endpoint, packages, media, interface="frames", name=None, package=None):
    from scoring.models import Endpoint

    fields = {"media": interface, "frames": 4} if interface == "frames" else {"media": interface}
    endpoint = Endpoint.objects.filter(name=f"ep-{interface}").first()
    endpoint = endpoint or make_endpoint(name=f"ep-{interface}", **fields)
    run = qa_predict(
        name=name or f"{media}-{interface}",
        manifest=world["manifest"],
        endpoint=endpoint,
        package=package or packages("qa-prediction"),
        media=media,
    )
    render_run_media(run)
    run_drive(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "finished"
    return run


def _items(run) -> list[RunItem]:
    return list(run.items.order_by("position"))


def _first_document(body: dict) -> dict:
    first = body["messages"][1]["content"]
    text = first if isinstance(first, str) else first[0]["text"]
    return json.loads(text[text.index("{") : text.rindex("}") + 1])


@pytest.mark.parametrize(
    ("media", "interface", "modalities", "recording"),
    [
        ("full", "frames", ["picture", "sound"], {"kind": "images", "count": 4, "sound": True}),
        ("full", "video_base64", ["picture", "sound"], {"kind": "video", "sound": True}),
        ("audio_only", "frames", ["sound"], {"kind": "sound"}),
        ("audio_only", "video_base64", ["sound"], {"kind": "sound"}),
        ("visual_only", "frames", ["picture"], {"kind": "images", "count": 4}),
        ("visual_only", "video_base64", ["picture"], {"kind": "video"}),
        ("text_only", "frames", [], {"kind": "none"}),
    ],
)
def test_sound_reaches_the_model_exactly_when_the_choice_sends_it(
    world, make_endpoint, packages, stand_in, media, interface, modalities, recording
):
    run = _run(world, make_endpoint, packages, media, interface)
    items = _items(run)
    assert [i.outcome for i in items] == [Outcome.OK, Outcome.OK]
    log = stand_in.stats()["log"]
    assert [entry["modalities"] for entry in log] == [modalities, modalities]
    bodies = stand_in.bodies(last=50)
    for body in bodies:
        assert _first_document(body)["recording"] == recording
        # The media bytes carry no name of the source (metadata is stripped when rendered).
        for part in [p for p in body["messages"][1]["content"] if isinstance(p, dict)]:
            if part["type"] == "input_audio":
                data = base64.b64decode(part["input_audio"]["data"])
            elif part["type"] in ("image_url", "video_url"):
                data = base64.b64decode(part[part["type"]]["url"].split(",", 1)[1])
            else:
                continue
            assert b"sound-source" not in data and b"Question" not in data
    parts = [p for p in bodies[0]["messages"][1]["content"] if isinstance(p, dict)]
    types = [p["type"] for p in parts if p["type"] != "text"]
    expected_interface = {"text_only": "text", "audio_only": "sound"}.get(
        media, interface + ("+sound" if media == "full" else "")
    )
    assert {i.interface for i in items} == {expected_interface}
    if media == "full" and interface == "frames":
        assert types == ["image_url"] * 4 + ["input_audio"]
        # The sound sent is exactly the WAV rendered beside the frames.
        audio = parts[-1]["input_audio"]
        assert audio["format"] == "wav"
        sent = base64.b64decode(audio["data"])
        assert sent == Path(sound_path(items[0].media)).read_bytes()
        assert sent[:4] == b"RIFF" and sent[8:12] == b"WAVE"
    elif media == "audio_only":
        assert types == ["input_audio"] and items[0].media.kind == RenderedMedia.Kind.AUDIO
    elif media == "text_only":
        assert types == [] and all(i.media_id is None for i in items)
    else:
        assert set(types) == {"image_url" if interface == "frames" else "video_url"}


@pytest.mark.parametrize(
    ("media", "modalities"), [("full", ["picture", "sound"]), ("visual_only", ["picture"])]
)
def test_a_video_url_brings_its_sound_to_the_model_server_that_fetches_it(
    world, make_endpoint, packages, stand_in, live_server, settings, media, modalities
):
    """A ``video_url`` endpoint gets a URL; the stand-in fetches it, as a model server does, and
    hears the clip's sound track exactly under the choice that sends one."""
    settings.MODEL_MEDIA_BASE_URL = live_server.url
    run = _run(world, make_endpoint, packages, media, "video_url")
    assert [entry["modalities"] for entry in stand_in.stats()["log"]] == [modalities] * 2
    for body in stand_in.bodies(last=50):
        (video,) = [p for p in body["messages"][1]["content"] if p["type"] == "video_url"]
        assert video["video_url"]["url"].startswith(live_server.url + "/model-media/")
    assert {i.interface for i in _items(run)} == {
        "video_url+sound" if media == "full" else "video_url"
    }


def test_the_media_hash_covers_the_sound(world, make_endpoint, packages, stand_in):
    full = _items(_run(world, make_endpoint, packages, "full"))
    visual = _items(_run(world, make_endpoint, packages, "visual_only", name="vis"))
    assert full[0].media_sha256 != visual[0].media_sha256
    assert full[0].cache_key != visual[0].cache_key
    # The same frames: the images are the visual run's, the hash differs by the sound alone.
    assert full[0].media.spec["frames"] == visual[0].media.spec["frames"]
    medium = full[0].media
    before = media_payload(medium, interface="frames", record=False).sha256
    assert before == full[0].media_sha256
    wav = Path(sound_path(medium))
    data = bytearray(wav.read_bytes())
    data[-1] ^= 0x01  # one byte of the last sample
    wav.write_bytes(bytes(data))
    assert media_payload(medium, interface="frames", record=False).sha256 != before


def _source_clicks(path, demuxer, start_us) -> list[int]:
    """Source times of the clicks a rendered sound holds (one span: its start is known)."""
    clicks, _samples, _rate = read_clicks(path, demuxer=demuxer)
    return [start_us + c for c in clicks]


def test_a_predictive_turn_hears_and_sees_nothing_from_its_cutoff_on(
    world, make_endpoint, packages, stand_in
):
    cutoff = at_frame(CUTOFF_FRAME)
    frames_run = _items(_run(world, make_endpoint, packages, "full"))
    clip_run = _items(_run(world, make_endpoint, packages, "full", "video_base64"))
    sound_run = _items(_run(world, make_endpoint, packages, "audio_only", name="snd"))
    for items in (frames_run, clip_run, sound_run):
        assert [i.cutoff_us for i in items] == [None, cutoff]
    times = world["video"].frame_times_us()
    start = at_frame(30)  # the group's span starts at turn 1's evidence
    for medium, path, demuxer, rate in (
        (frames_run[1].media, sound_path(frames_run[1].media), "wav", 16_000),
        (clip_run[1].media, default_storage.path(clip_run[1].media.path), "mov", 48_000),
        (sound_run[1].media, default_storage.path(sound_run[1].media.path), "wav", 16_000),
    ):
        assert medium.status == "ready"
        spans = medium.spec["audio"]["spans_us"]
        assert len(spans) == 1 and spans[0][0] == start and spans[0][1] <= cutoff
        heard = _source_clicks(path, demuxer, start)
        # Every click from the span's start up to the last one before the cutoff, none after:
        # the click at 2.1 s is heard, the one at 2.2 s (past the cutoff) is not.
        first = -(-start // CLICK_EVERY_US) * CLICK_EVERY_US
        wanted = list(range(first, cutoff, CLICK_EVERY_US))
        assert len(heard) == len(wanted) and wanted[-1] == 2_100_000
        assert max(abs(a - b) for a, b in zip(heard, wanted, strict=True)) <= 1_500
        assert medium.audio_rate == rate
        assert abs(medium.audio_samples - span_samples(spans[0][2] - start, rate)) <= (
            1024 if rate == 48_000 else 0
        )
        assert max(int(times[i]) for i in medium.spec["frames"]) < cutoff
    # The sound beside the frames is the window's sound alone, byte for byte.
    alone = Path(default_storage.path(sound_run[1].media.path)).read_bytes()
    assert Path(sound_path(frames_run[1].media)).read_bytes() == alone
    # The pictures: the frames and the clip stop at the last frame before the cutoff.
    frames = sorted(Path(default_storage.path(frames_run[1].media.path)).glob("*.png"))
    shown = [n for f in frames for n in read_frame_numbers(f)]
    assert shown and max(shown) == CUTOFF_FRAME - 1
    clip = read_frame_numbers(default_storage.path(clip_run[1].media.path))
    assert clip == list(range(30, CUTOFF_FRAME))
    # A clip with sound ends its sound within one AAC frame of its last picture frame's end.
    _clicks, samples, rate = read_clicks(default_storage.path(clip_run[1].media.path))
    assert abs(samples - span_samples(clip_run[1].media.duration_us, rate)) <= 1024


def test_sound_on_a_silent_source_is_refused_and_nothing_written(
    world, make_endpoint, packages, stand_in
):
    endpoint = make_endpoint(frames=4)
    for media in ("full", "audio_only"):
        with pytest.raises(RunError, match=r"silent-source\.mp4") as refused:
            qa_predict(name="refused", manifest=world["mixed"], endpoint=endpoint,
                       package=packages("qa-prediction"), media=media)  # fmt: skip
        message = str(refused.value)
        assert "Node question on silent-source.mp4" in message, message
        assert "sound-source.mp4" not in message and "Picture only (no sound)" in message
    assert not Run.objects.exists() and not RunItem.objects.exists()
    # Without sound the same groups run.
    run = qa_predict(name="fine", manifest=world["mixed"], endpoint=endpoint,
                     package=packages("qa-prediction"), media="visual_only")  # fmt: skip
    assert run.items.count() == 2


def _turn_package(tmp_path, packages):
    from scoring.packages.store import BUILTIN_DIR, package_register

    packages("qa-prediction")
    raw = json.loads((BUILTIN_DIR / "qa-prediction.json").read_text())
    raw |= {"name": "qa-prediction-turn", "media_window": "turn"}
    path = tmp_path / "qa-prediction-turn.json"
    path.write_text(json.dumps(raw))
    return package_register(path=path)[0]


def test_the_turns_own_evidence_window(world, make_endpoint, packages, stand_in, tmp_path):
    package = _turn_package(tmp_path, packages)
    grouped = _items(_run(world, make_endpoint, packages, "visual_only", "video_base64"))
    own = _items(_run(world, make_endpoint, packages, "visual_only", "video_base64",
                      name="own", package=package))  # fmt: skip
    # Turn 1: its evidence 30-45 (the sound 30-40 inside it); turn 2: 60-75 and 85-95, cut at
    # its cutoff 65 — one segment left.
    assert read_frame_numbers(default_storage.path(own[0].media.path)) == list(range(30, 45))
    assert read_frame_numbers(default_storage.path(own[1].media.path)) == list(range(60, 65))
    assert read_frame_numbers(default_storage.path(grouped[0].media.path)) == list(range(30, 95))
    # Other media, other hashes and cache keys; each turn's own medium opens its request.
    for a, b in zip(grouped, own, strict=True):
        assert a.media_sha256 != b.media_sha256 and a.cache_key != b.cache_key
    bodies = stand_in.bodies(last=50)[-2:]
    for body, item in zip(bodies, own, strict=True):
        (video,) = [p for p in body["messages"][1]["content"] if p["type"] == "video_url"]
        sent = base64.b64decode(video["video_url"]["url"].split(",", 1)[1])
        assert sent == Path(default_storage.path(item.media.path)).read_bytes()
    run = Run.objects.get(name="own")
    assert run.options["media_window"] == "turn" and run.provenance["media"]["window"] == "turn"


def test_a_turn_window_without_the_cutoff_spans_every_evidence_interval(
    world, make_endpoint, packages, stand_in, tmp_path
):
    from review.qa.models import QaTurn
    from scoring.qa.runs import turn_window

    turn = QaTurn.objects.get(group__uid=world["chain"]["uid"], position=1)
    window = turn_window(turn.group, turn, window="turn")
    assert window.segments == ((at_frame(60), at_frame(75)), (at_frame(85), at_frame(95)))
    cut = turn_window(turn.group, turn, window="turn", cutoff_us=turn.cutoff_us)
    assert cut.segments == ((at_frame(60), turn.cutoff_us),)


def test_package_media_window_is_checked():
    from scoring.packages import PackageError
    from scoring.packages.store import BUILTIN_DIR, package_check

    raw = json.loads((BUILTIN_DIR / "qa-prediction.json").read_text())
    assert package_check(raw).media_window == "group"
    assert package_check(raw | {"media_window": "turn"}).media_window == "turn"
    with pytest.raises(PackageError, match="media_window"):
        package_check(raw | {"media_window": "scene"})
    other = json.loads((BUILTIN_DIR / "frames-prediction.json").read_text())
    with pytest.raises(PackageError, match="qa_prediction"):
        package_check(other | {"media_window": "turn"})


def test_stand_in_rules_match_the_modalities_that_arrived(world, make_endpoint, packages, stand_in):
    scripted = json.dumps({"answer": "scripted for text only"})
    both = json.dumps({"answer": "heard and seen"})
    stand_in.rules(
        {"modalities": [], "times": -1, "action": {"content": scripted}},
        {"modalities": ["sound", "picture"], "times": -1, "action": {"content": both}},
    )
    text = _items(_run(world, make_endpoint, packages, "text_only"))
    assert [i.prediction["answer"] for i in text] == ["scripted for text only"] * 2
    full = _items(_run(world, make_endpoint, packages, "full", name="f"))
    assert [i.prediction["answer"] for i in full] == ["heard and seen"] * 2
    for media in ("visual_only", "audio_only"):
        other = _items(_run(world, make_endpoint, packages, media, name=media))
        assert not {i.prediction["answer"] for i in other} & {
            "heard and seen",
            "scripted for text only",
        }
    assert [e["modalities"] for e in stand_in.stats()["log"]] == [
        [], [], ["picture", "sound"], ["picture", "sound"], ["picture"], ["picture"],
        ["sound"], ["sound"],
    ]  # fmt: skip


def test_the_stand_in_answers_by_the_sound_it_got():
    from scoring.providers.stand_in import answer, call_data
    from scoring.providers.stand_in_media import modalities

    def body(sound: bytes) -> dict:
        data = base64.b64encode(sound).decode()
        part = {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}
        text = {"type": "text", "text": json.dumps({"turn": 1, "question": "What is heard?"})}
        return {"messages": [{"role": "user", "content": [text, part]}]}

    wavs = [b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes([i]) * 40 for i in range(12)]
    answers = {answer(*call_data(body(w)))["answer"] for w in wavs}
    assert len(answers) > 1  # another sound, another answer
    assert modalities(body(wavs[0])) == ["sound"]
    assert modalities(body(b"not a sound file")) == []
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    assert modalities({"messages": [{"role": "user", "content": [picture]}]}) == ["picture"]


def test_the_start_form_offers_the_media_choices_and_refuses_silent_sources(
    client, admin_user, world, make_endpoint, packages, stand_in
):
    from django.urls import reverse

    endpoint = make_endpoint(frames=4)
    client.force_login(admin_user)
    form = {"name": "page-run", "manifest": world["mixed"].pk, "endpoint": endpoint.pk,
            "package": packages("qa-prediction").pk}  # fmt: skip
    page = client.get(reverse("scoring:qa-run-start")).content.decode()
    for shown in ("Picture and sound", "Picture only (no sound)", "Sound only", "Text only"):
        assert shown in page
    assert 'value="clip"' not in page  # the old name is not offered
    refused = client.post(reverse("scoring:qa-run-start"), {**form, "media": "full"})
    assert refused.status_code == 200 and "silent-source.mp4" in refused.content.decode()
    assert (
        client.post(reverse("scoring:qa-run-start"), {**form, "media": "clip"}).status_code == 200
    )
    assert not Run.objects.exists()
    started = client.post(reverse("scoring:qa-run-start"), {**form, "media": "visual_only"})
    run = Run.objects.get(name="page-run")
    assert started.status_code == 302 and run.condition == "visual_only"
    shown = client.get(reverse("scoring:run-detail", args=[run.pk])).content.decode()
    assert "<dt>Media</dt><dd>Picture only (no sound)</dd>" in shown


def test_a_run_stored_under_the_old_name_clip_resumes_as_before(
    world, make_endpoint, packages, stand_in
):
    run = _run(world, make_endpoint, packages, "visual_only", name="old")
    Run.objects.filter(pk=run.pk).update(condition="clip")  # as runs were stored before
    keys = [i.cache_key for i in _items(run)]
    calls = stand_in.stats()["requests"]
    for media in ("clip", "visual_only"):
        again = qa_predict(name="old", manifest=world["manifest"], endpoint=run.endpoint,
                           package=packages("qa-prediction"), media=media)  # fmt: skip
        assert again.pk == run.pk and again.condition == "clip"
        run_drive(run_id=again.pk)
    assert stand_in.stats()["requests"] == calls
    assert [i.cache_key for i in _items(run)] == keys
    with pytest.raises(RunError, match="condition is clip, not full"):
        qa_predict(name="old", manifest=world["manifest"], endpoint=run.endpoint,
                   package=packages("qa-prediction"), media="full")  # fmt: skip
    # A new run under the old name is a visual_only run: the same requests, the same keys.
    RunItem.objects.filter(run=run).update(cache_key="old-key")
    Run.objects.filter(pk=run.pk).update(condition="visual_only")
    fresh = _items(_run(world, make_endpoint, packages, "clip", name="new-clip"))
    assert [i.cache_key for i in fresh] == keys


def test_a_rendered_sound_that_breaks_its_spec_is_never_sent(
    world, make_endpoint, packages, stand_in
):
    from scoring.runs.progress import run_progress

    endpoint = make_endpoint(name="ep-breach", media="frames", frames=4)
    run = qa_predict(name="breach", manifest=world["manifest"], endpoint=endpoint,
                     package=packages("qa-prediction"), media="audio_only")  # fmt: skip
    render_run_media(run)
    first, second = _items(run)
    # The predictive turn's sound, as if its count had come out one sample long.
    RenderedMedia.objects.filter(pk=second.media_id).update(
        audio_samples=second.media.audio_samples + 1
    )
    run_drive(run_id=run.pk)
    first, second = _items(run)
    assert first.outcome == Outcome.OK and second.state == "pending" and second.requests == 0
    second.media.refresh_from_db()
    assert second.media.status == "failed" and "samples" in second.media.error
    assert stand_in.stats()["requests"] == 1  # turn 1 only
    assert run_progress(run)["media_failed"] == 1
