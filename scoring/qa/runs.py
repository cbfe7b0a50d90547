"""QA runs: a model answers the sampled QA groups of a frozen ``qa_review`` manifest, every group
a dialogue of its turns in order (``scoring.qa.dialogue``), with the same drivers, cache, resume,
limits, outcomes and provenance as prediction runs (``scoring.runs``).

Media (``MEDIA``): ``clip`` sends the group's clip (its span, ``[first evidence start, last
evidence end)``) in the endpoint's interface (N frames for a ``frames`` endpoint, the clip for
``video_base64`` / ``video_url``); ``text_only`` sends no media at all. A predictive turn (one
with a decision cutoff) gets only the part of the clip before its cutoff, checked frame by frame
and recorded on its item (``RunItem.cutoff_us``).

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
from scoring.qa.dialogue import KIND, turn_document, turn_key
from scoring.runs.lifecycle import MAX_DRIVERS, driver_count, drivers_enqueue, run_finish_if_done
from scoring.runs.services import (
    RunError,
    check_package,
    provenance,
    run_name_check,
    run_resume,
    same,
)
from studio.vocabulary import vocabulary

MEDIA = ("clip", "text_only")
vocabulary(
    "qa_media",
    [("clip", "The group's clip"), ("text_only", "Text only (no media)")],
    title="Media",
)
CONDITION = "qa_group"  # the window's name in the render spec (as the review page's clip)


def qa_manifest_source(manifest: Manifest) -> QaManifestSource:
    source = QaManifestSource.objects.select_related("group_set").filter(manifest=manifest).first()
    if source is None or not manifest.is_frozen:
        raise RunError(f"manifest {manifest.name} is not a frozen QA manifest")
    return source


def qa_profile(media: str, endpoint: Endpoint) -> str | None:
    """The render profile of ``media`` for an endpoint (None: no media)."""
    if media not in MEDIA:
        raise RunError(f"unknown media {media!r}; one of: {', '.join(MEDIA)}")
    if media == "text_only":
        return None
    if endpoint.media == MediaInterface.FRAMES:
        return frames_profile(endpoint.frames)
    return "clip"


def group_clip(group: QaGroup, profile: str, cutoff_us: int | None = None):
    """The group's clip, or for a predictive turn the part of it before the turn's cutoff:
    ``[span start, min(span end, cutoff))``. Its frames (known from the render spec before it is
    rendered) are checked: none may start at or after the cutoff (RunError otherwise)."""
    end = group.span_end_us if cutoff_us is None else min(group.span_end_us, cutoff_us)
    if end <= group.span_start_us:
        raise RunError(f"group {group.uid}: its cutoff leaves no media before it")
    window = Window(CONDITION, ((group.span_start_us, end),))
    media = media_for_window(video=group.video, window=window, profile=profile, seed=str(group.uid))
    if cutoff_us is not None:
        times = group.video.frame_times_us()
        late = [int(times[i]) for i in media.spec.get("frames", []) if times[i] >= cutoff_us]
        if late or not media.spec.get("frames"):
            raise RunError(
                f"group {group.uid}: the media of a turn with cutoff {cutoff_us} µs would show "
                f"{len(late)} frame(s) at or after it"
            )
    return media


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
    media: str = "clip",
    user=None,
    retry_failed: bool = False,
    resume: bool = True,
) -> Run:
    """Start QA run ``name`` over the groups of a frozen QA manifest, or resume it when it exists
    with the same parameters (without ``resume``, an existing run is returned as it is)."""
    run_name_check(name)
    source = qa_manifest_source(manifest)
    profile = qa_profile(media, endpoint)
    check_package(package, KIND)
    existing = Run.objects.filter(name=name).first()
    if existing is not None:
        differences = same(
            existing,
            kind=RunKind.QA_PREDICTION,
            endpoint=endpoint,
            package=package,
            condition=media,
            manifest=manifest,
        )
        if differences:
            raise RunError(f"run {name} exists with other parameters: {'; '.join(differences)}")
        return run_resume(run=existing, retry_failed=retry_failed) if resume else existing
    groups = list(
        QaGroup.objects.filter(group_set=source.group_set, uid__in=qa_manifest_uids(manifest))
        .select_related("video")
        .prefetch_related("turns")
        .order_by("uid")
    )
    prov = provenance(endpoint=endpoint, package=package, release=None, manifest=None)
    prov["set"] = qa_set_snapshot(manifest, source)
    prov["media"] = {"media": media, "profile": profile}
    prov["dialogue"] = "each turn sees the earlier questions and the model's own replies"
    run = Run.objects.create(
        name=name,
        kind=RunKind.QA_PREDICTION,
        manifest=manifest,
        condition=media,
        endpoint=endpoint,
        package=package,
        options={"media_profile": profile},
        provenance=prov,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    items = []
    for group in groups:
        clip = None
        if profile is not None:
            try:
                clip = group_clip(group, profile)
            except ProfileMismatch as exc:
                raise RunError(str(exc)) from None
        for turn in sorted(group.turns.all(), key=lambda t: t.position):
            media = clip
            if profile is not None and turn.cutoff_us is not None:
                media = group_clip(group, profile, turn.cutoff_us)
            items.append(
                RunItem(
                    run=run,
                    position=len(items),
                    key=turn_key(str(group.uid), turn.position),
                    sample_id=group.uid,
                    state=ItemState.PENDING if turn.position == 0 else ItemState.WAITING,
                    media=media,
                    cutoff_us=turn.cutoff_us,
                    input=turn_document(turn.position + 1, turn.question, turn.options),
                )
            )
    RunItem.objects.bulk_create(items, batch_size=1000)
    run_finish_if_done(run.pk)
    drivers_enqueue(run, count=min(len(groups), driver_count(endpoint), MAX_DRIVERS))
    run.refresh_from_db()
    return run
