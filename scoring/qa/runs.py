"""QA runs: a model answers the sampled QA groups of a frozen ``qa_review`` manifest, every group
a dialogue of its turns in order (``scoring.qa.dialogue``), with the same drivers, cache, resume,
limits, outcomes and provenance as prediction runs (``scoring.runs``).

Media (``MEDIA``, stored as the run's condition), per endpoint interface:

- ``full``: picture and sound. A ``frames`` endpoint gets the N frames as images and the window's
  sound as one ``input_audio`` part (16 kHz WAV, rendered beside the frames: profile
  ``framesN_wav16k``); a ``video_base64`` / ``video_url`` endpoint gets the clip with its sound
  track (``clip_audio``);
- ``visual_only``: the picture alone (the N frames, or the silent clip); ``clip`` is its old
  name, kept for runs stored under it;
- ``audio_only``: the window's sound alone, one ``input_audio`` part (``audio_wav16k``), whatever
  the interface;
- ``text_only``: no media at all.

A source without sound is refused for ``full`` and ``audio_only`` when the run is started (the
refusal names every group and video; nothing is written).

The window a turn's media show is the prompt package's ``media_window``: ``group`` (default)
the group's clip, its span ``[first evidence start, last evidence end)``; ``turn`` the union of
the turn's own evidence intervals. A predictive turn (one with a decision cutoff) gets only the
part before its cutoff, checked from the render spec before anything is rendered: no frame that
starts at or after the cutoff, no stretch of the source's sound that ends after it (where the
last frame lasts past the cutoff, silence fills; ``media.audio``). When the turn is asked, its
rendered sound is checked again (``turn_sound_check``: as many samples as its spans) and the
call records the cutoff (``RunItem.cutoff_us``) and what came (``RunItem.interface``).

Running ``qa_predict`` again with the same name resumes the run: ``ok`` turns are never asked
again; a turn that ended in ``api_error`` (and with ``retry_failed`` a parse failure or refusal)
is asked again, and the turns after it wait for it again instead of staying not asked.
"""

from __future__ import annotations

from django.db import transaction

from media.renders import ProfileMismatch, frames_profile, media_for_window
from media.windows import Window
from review.models import Manifest
from review.qa.models import QaGroup, QaManifestSource
from review.qa.sampling import qa_manifest_uids
from scoring.models import (
    Endpoint,
    ItemState,
    MediaInterface,
    PromptPackage,
    Run,
    RunItem,
    RunKind,
)
from scoring.packages import package_verified
from scoring.qa.cutoffs import cutoff_check
from scoring.qa.dialogue import KIND, turn_document, turn_key
from scoring.qa.precache import dialogues_from_cache
from scoring.runs.lifecycle import MAX_DRIVERS, driver_count, drivers_enqueue, run_finish_if_done
from scoring.runs.services import (
    RunError,
    check_package,
    provenance,
    run_name_check,
    run_resume,
    same,
)
from studio.vocabulary import label, vocabulary

MEDIA = ("full", "visual_only", "audio_only", "text_only")
OLD_NAMES = {"clip": "visual_only"}  # runs stored under an old name resume as before
SOUND_MEDIA = ("full", "audio_only")
vocabulary(
    "qa_media",
    [
        ("full", "Picture and sound"),
        ("visual_only", "Picture only (no sound)"),
        ("audio_only", "Sound only"),
        ("text_only", "Text only (no media)"),
        ("clip", "Picture only (no sound)"),
    ],
    title="Media",
)
CONDITION = "qa_group"  # the window's name in the render spec (as the review page's clip)
TURN_CONDITION = "qa_turn"  # a turn's own evidence window


def media_choice(media: str) -> str:
    """``media`` as one of ``MEDIA`` (an old name mapped); RunError for anything else."""
    media = OLD_NAMES.get(media, media)
    if media not in MEDIA:
        raise RunError(f"unknown media {media!r}; one of: {', '.join(MEDIA)}")
    return media


def qa_manifest_source(manifest: Manifest) -> QaManifestSource:
    source = QaManifestSource.objects.select_related("group_set").filter(manifest=manifest).first()
    if source is None or not manifest.is_frozen:
        raise RunError(f"manifest {manifest.name} is not a frozen QA manifest")
    return source


def qa_profile(media: str, endpoint: Endpoint) -> str | None:
    """The render profile of ``media`` for an endpoint (None: no media)."""
    media = media_choice(media)
    if media == "text_only":
        return None
    if media == "audio_only":
        return "audio_wav16k"
    sound = media == "full"
    if endpoint.media == MediaInterface.FRAMES:
        return frames_profile(endpoint.frames, sound=sound)
    return "clip_audio" if sound else "clip"


def merged(intervals) -> tuple[tuple[int, int], ...]:
    """Half-open intervals as a sorted union of disjoint ones (touching ones joined)."""
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in intervals if b > a):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def turn_window(group: QaGroup, turn=None, *, window: str = "group", cutoff_us=None) -> Window:
    """The window of a turn's media: the group's span, or (``window="turn"``) the union of the
    turn's evidence intervals; for a predictive turn only what lies before its cutoff."""
    if window == "turn" and turn is not None:
        segments = merged((e.start_us, e.end_us) for e in turn.evidence.all())
        name = TURN_CONDITION
    else:
        segments, name = ((group.span_start_us, group.span_end_us),), CONDITION
    if cutoff_us is not None:
        segments = tuple((a, min(b, cutoff_us)) for a, b in segments if a < cutoff_us)
    if not segments:
        raise RunError(f"group {group.uid}: its cutoff leaves no media before it")
    return Window(name, segments)


def group_clip(group: QaGroup, profile: str, cutoff_us: int | None = None, *, turn=None,
               window: str = "group"):  # fmt: skip
    """The medium of a turn: the group's clip (or with ``window="turn"`` the turn's own evidence
    window), for a predictive turn the part of it before the turn's cutoff. Its frames and
    sound (known from the render spec before it is rendered) are checked (``cutoff_check``)."""
    shown = turn_window(group, turn, window=window, cutoff_us=cutoff_us)
    media = media_for_window(video=group.video, window=shown, profile=profile, seed=str(group.uid))
    if cutoff_us is not None:
        cutoff_check(media.spec, cutoff_us, group.video.frame_times_us(), f"group {group.uid}")
    return media


def silent_sources(groups: list[QaGroup]) -> str:
    """The groups whose video has no sound, as a refusal names them ("" when none): by their
    names on staff pages, which say their video and stretch."""
    return "; ".join(g.display_name for g in groups if not g.video.has_audio)


def qa_set_snapshot(manifest: Manifest, source: QaManifestSource) -> dict:
    group_set = source.group_set
    return {
        "kind": "qa_manifest",
        "name": manifest.name,
        "group_set": group_set.name,
        "group_set_manifest_sha256": group_set.manifest_sha256,
        "sample_count": manifest.sample_count,
        "sample_list_sha256": manifest.sample_list_sha256,
        "manifest_sha256": manifest.manifest_sha256,
    }


@transaction.atomic
def qa_predict(
    *,
    name: str,
    manifest: Manifest,
    endpoint: Endpoint,
    package: PromptPackage,
    media: str = "visual_only",
    user=None,
    retry_failed: bool = False,
    resume: bool = True,
) -> Run:
    """Start QA run ``name`` over the groups of a frozen QA manifest, or resume it when it exists
    with the same parameters (without ``resume``, an existing run is returned as it is)."""
    run_name_check(name)
    source = qa_manifest_source(manifest)
    media = media_choice(media)
    profile = qa_profile(media, endpoint)
    check_package(package, KIND)
    window = package_verified(package).media_window
    existing = Run.objects.filter(name=name).first()
    if existing is not None:
        differences = same(
            existing, kind=RunKind.QA_PREDICTION, endpoint=endpoint, package=package,
            manifest=manifest,
        )  # fmt: skip
        if OLD_NAMES.get(existing.condition, existing.condition) != media:
            differences.append(f"condition is {existing.condition}, not {media}")
        if differences:
            raise RunError(f"run {name} exists with other parameters: {'; '.join(differences)}")
        return run_resume(run=existing, retry_failed=retry_failed) if resume else existing
    groups = list(
        QaGroup.objects.filter(group_set=source.group_set, uid__in=qa_manifest_uids(manifest))
        .select_related("video")
        .prefetch_related("turns__evidence")
        .order_by("uid")
    )
    if media in SOUND_MEDIA and silent_sources(groups):
        raise RunError(
            f"{label('qa_media', media)} needs sound, and the videos of these groups have none: "
            f"{silent_sources(groups)}. Choose {label('qa_media', 'visual_only')} or "
            f"{label('qa_media', 'text_only')} for them."
        )
    prov = provenance(endpoint=endpoint, package=package, release=None, manifest=None)
    prov["set"] = qa_set_snapshot(manifest, source)
    prov["media"] = {"media": media, "profile": profile, "window": window}
    prov["dialogue"] = "each turn sees the earlier questions and the model's own replies"
    run = Run.objects.create(
        name=name,
        kind=RunKind.QA_PREDICTION,
        manifest=manifest,
        condition=media,
        endpoint=endpoint,
        package=package,
        options={"media_profile": profile, "media_window": window},
        provenance=prov,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    items = []
    for group in groups:
        clip = None
        try:
            if profile is not None and window == "group":
                clip = group_clip(group, profile)
            for turn in sorted(group.turns.all(), key=lambda t: t.position):
                shown = clip
                if profile is not None and (window == "turn" or turn.cutoff_us is not None):
                    shown = group_clip(group, profile, turn.cutoff_us, turn=turn, window=window)
                items.append(
                    RunItem(
                        run=run,
                        position=len(items),
                        key=turn_key(str(group.uid), turn.position),
                        sample_id=group.uid,
                        state=ItemState.PENDING if turn.position == 0 else ItemState.WAITING,
                        media=shown,
                        cutoff_us=turn.cutoff_us,
                        input=turn_document(turn.position + 1, turn.question, turn.options),
                    )
                )
        except ProfileMismatch as exc:
            raise RunError(f"group {group.uid}: {exc}") from None
    dialogues_from_cache(run, items)
    RunItem.objects.bulk_create(items, batch_size=1000)
    run_finish_if_done(run.pk)
    drivers_enqueue(run, count=min(len(groups), driver_count(endpoint), MAX_DRIVERS))
    run.refresh_from_db()
    return run
