"""Services for rendered media: request, render (claim → ffmpeg → verify → rename → ready),
batches with progress, re-runs.

Idempotence: a medium's key is the SHA-256 of its spec (source bytes, exact source frames, order,
profile, renderer version), so asking twice for the same thing returns the same row and renders
nothing new. A render writes to a temporary name, verifies it, and only then links it to its final,
content-addressed name and marks the row ready; a worker killed at any point leaves no ready row,
and the next run either finds the verified final file (and only records it) or renders again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import socket
import time
from collections.abc import Iterable
from dataclasses import asdict
from functools import partial
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q

from media.audio import AudioTrack, audio_spans
from media.ffmpeg import FFmpegError
from media.ffrender import (
    AudioOutput,
    ClipOutput,
    FramesOutput,
    RenderVerificationError,
    SourceRef,
    output_size,
    render,
    verify_audio,
    verify_clip,
    verify_frames,
)
from media.models import RenderedMedia, SourceVideo
from media.probe import MediaRejected

# Profiles live in media.profiles; callers have always found these names here too.
from media.profiles import (
    PROFILES,  # noqa: F401
    AudioUnavailable,
    ProfileMismatch,
    frames_profile,  # noqa: F401
    profile_named,
    transmission_profile,  # noqa: F401
)
from media.windows import (
    StepTimes,
    Window,
    condition_window,
    frame_set,
    window_frames,
)
from studio import services as studio_services
from studio.enqueue import soft_time_limit, task_named
from studio.leases import WorkKind, lease_claim, lease_kept, lease_release

RENDERER_VERSION = 1


# --- specs and keys ---------------------------------------------------------------------------


def media_spec(*, video: SourceVideo, window: Window, profile: str, seed: int | str = 0) -> dict:
    """Everything that determines the output bytes; its hash is the medium's key.

    AudioUnavailable (a ProfileMismatch) when the profile carries sound and the source has none.
    """
    prof = profile_named(profile)
    if prof.audio and not video.has_audio:
        raise AudioUnavailable(
            f"{video.title} has no sound track, and the {profile} profile renders sound; use a "
            "silent profile or a source with audio"
        )
    times = video.frame_times_us()
    spec = {
        "renderer": RENDERER_VERSION,
        "source_sha256": video.sha256,
        "kind": prof.kind,
        "profile": asdict(prof),
    }
    if prof.kind != "audio":
        spec["size"] = list(output_size(*video.display_size, prof.max_short_side))
    if prof.kind in ("clip", "audio"):
        if window.order != "chronological":
            raise ProfileMismatch(
                f"{window.condition} is a frame set; render it with a frames profile"
            )
        selection = window_frames(times, window)
        spec |= {
            "frames": list(selection.indices),
            "run_starts": list(selection.segment_starts),
            "boundary_fallback": selection.boundary_fallback,
        }
        if prof.audio:
            spans = audio_spans(times, selection.indices, selection.segment_starts,
                                window.segments)  # fmt: skip
            spec["audio"] = AudioTrack(prof.audio_format, spans).as_spec()
    else:
        indices, permutation, fallback = frame_set(times, window, count=prof.frame_count, seed=seed)
        spec |= {
            "frames": list(indices),
            "order": window.order,
            "permutation": list(permutation) if permutation else None,
            "seed": seed if permutation else None,
            "boundary_fallback": fallback,
        }
        if prof.audio:
            # The sound beside a frame set is the whole window's, by the same rule as a clip's
            # track (every frame of the window, not only the sampled ones, decides its spans).
            if window.order != "chronological":
                raise ProfileMismatch(f"{window.condition} has no sound: its frames are reordered")
            selection = window_frames(times, window)
            spans = audio_spans(times, selection.indices, selection.segment_starts,
                                window.segments)  # fmt: skip
            spec["audio"] = AudioTrack(prof.audio_format, spans).as_spec()
    return spec


def spec_key(spec: dict) -> str:
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def media_for_window(
    *, video: SourceVideo, window: Window, profile: str = "clip", seed: int | str = 0,
    enqueue: bool = True,
) -> RenderedMedia:  # fmt: skip
    """The medium for ``window`` under ``profile`` (created if new); rendering is queued after
    the surrounding transaction commits unless the medium is ready or already queued."""
    spec = media_spec(video=video, window=window, profile=profile, seed=seed)
    media, created = RenderedMedia.objects.get_or_create(
        key=spec_key(spec),
        defaults={"video": video, "kind": spec["kind"], "profile": profile, "spec": spec},
    )
    if enqueue and (created or media.status == RenderedMedia.Status.FAILED):
        media_enqueue(media_ids=[media.pk])
    return media


def media_request(
    *,
    video: SourceVideo,
    condition: str,
    step: StepTimes,
    previous: StepTimes | None = None,
    following: StepTimes | None = None,
    profile: str = "clip",
    seed: int | str = 0,
) -> RenderedMedia:
    """The medium of ``condition`` for a step (plain times) of ``video``; see media.windows."""
    window = condition_window(condition, step=step, previous=previous, following=following)
    return media_for_window(video=video, window=window, profile=profile, seed=seed)


def media_enqueue(*, media_ids: Iterable[int] = (), groups: Iterable[list[int]] = ()) -> None:
    """Queue renders after the surrounding transaction commits: one task per medium, and one
    task per group of media of one source that should share a decode."""
    render_medium = task_named("media.render_medium")
    render_media_group = task_named("media.render_media_group")

    for media_id in media_ids:
        transaction.on_commit(partial(render_medium.delay, media_id))
    for group in groups:
        transaction.on_commit(partial(render_media_group.delay, list(group)))


def media_rerun(*, media_ids: Iterable[int] | None = None) -> int:
    """Queue every medium that is not ready (all of them, or those listed); returns how many.

    This is how the work of a killed worker is picked up: its row is still ``rendering``."""
    qs = RenderedMedia.objects.exclude(status=RenderedMedia.Status.READY)
    if media_ids is not None:
        qs = qs.filter(pk__in=list(media_ids))
    ids = list(qs.values_list("pk", flat=True))
    media_enqueue(media_ids=ids)
    return len(ids)


# --- rendering ------------------------------------------------------------------------------------


def _suffix(media: RenderedMedia) -> str:
    """The file name's ending: a clip's ``.mp4``, sound's ``.wav``/``.flac``; none for a folder."""
    if media.kind == RenderedMedia.Kind.CLIP:
        return ".mp4"
    if media.kind == RenderedMedia.Kind.AUDIO:
        return "." + media.spec["audio"]["format"]["container"]
    return ""


def _final_name(media: RenderedMedia) -> str:
    return f"renders/{media.key[:2]}/{media.key}{_suffix(media)}"


def _tmp_dir() -> Path:
    path = Path(default_storage.path("renders/tmp"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed process whose parent died too may linger as a zombie until reaped: it is dead.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def _remove_stale_temps(key: str) -> None:
    """Temporary outputs of this key left by a dead render (same host, process gone) or older
    than any render may last."""
    from django.conf import settings

    host = socket.gethostname()
    horizon = time.time() - settings.FFMPEG_TIMEOUT_SECONDS - 60
    for path in _tmp_dir().glob(f"{key}.*"):
        parts = path.name.split(".")
        dead_here = len(parts) >= 4 and parts[1] == host and not _pid_alive(int(parts[2]))
        if dead_here or path.stat().st_mtime < horizon:
            _remove(path)


def _remove_temps_of(media: RenderedMedia) -> None:
    """Temporary outputs of the attempt whose lease expired (its owner is ``host:pid:token``)."""
    host, _, rest = media.lease_owner.partition(":")
    pid = rest.partition(":")[0]
    if host and pid:
        for path in _tmp_dir().glob(f"{media.key}.{host}.{pid}.*"):
            _remove(path)


RENDER_WORK = WorkKind(
    name="media.render",
    model=RenderedMedia,
    running=Q(status=RenderedMedia.Status.RENDERING),
    requeue=lambda ids: media_enqueue(media_ids=ids),
    reset={"status": RenderedMedia.Status.PENDING},
    fail={"status": RenderedMedia.Status.FAILED},
    cleanup=_remove_temps_of,
)


def _source_ref(video: SourceVideo) -> SourceRef:
    width, height = video.display_size
    return SourceRef(
        path=Path(video.file.path),
        demuxer=video.demuxer,
        origin_us=video.origin_us,
        frame_times_us=video.frame_times_us(),
        keyframe_times_us=video.keyframe_times_us(),
        width=width,
        height=height,
        has_audio=video.has_audio,
    )


def _output(media: RenderedMedia, target: Path) -> ClipOutput | FramesOutput | AudioOutput:
    spec = media.spec
    if spec["profile"].get("audio") is True:
        # A spec from before sound had its own rule (media.audio) names no spans to cut.
        raise RenderVerificationError(
            "this medium was requested before sound was cut by its own rule; request it again"
        )
    track = AudioTrack.from_spec(spec["audio"]) if spec.get("audio") else None
    if media.kind == RenderedMedia.Kind.AUDIO:
        return AudioOutput(path=target, track=track)
    size = tuple(spec["size"])
    if media.kind == RenderedMedia.Kind.CLIP:
        prof = spec["profile"]
        return ClipOutput(
            path=target,
            indices=tuple(spec["frames"]),
            run_starts=tuple(spec["run_starts"]),
            size=size,
            crf=prof["crf"],
            preset=prof["preset"],
            audio=track,
            min_duration_us=prof["min_duration_us"],
            intra_qp=prof["intra_qp"],
        )
    return FramesOutput(directory=target, indices=tuple(spec["frames"]), size=size, audio=track)


def _verify(output, times) -> dict:
    if isinstance(output, ClipOutput):
        return verify_clip(output, times)
    if isinstance(output, AudioOutput):
        return verify_audio(output)
    return verify_frames(output)


def _size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size


def _retarget(output, target: Path):
    from dataclasses import replace

    if isinstance(output, FramesOutput):
        return replace(output, directory=target)
    return replace(output, path=target)


RENDER_ERRORS = (FFmpegError, RenderVerificationError, MediaRejected, OSError)


def _claim(media_id: int) -> RenderedMedia | None:
    """Take a medium that is not ready under a lease; None if it is ready, gone or held by a live
    worker. The lease owner rides on the instance (``media.lease_owner``) to the final write."""
    owner = lease_claim(
        queryset=RenderedMedia.objects.exclude(status=RenderedMedia.Status.READY),
        pk=media_id,
        set={
            "status": RenderedMedia.Status.RENDERING,
            "claimed_at": studio_services.now(),
            "error": "",
        },
    )
    if owner is None:
        return None
    return RenderedMedia.objects.select_related("video").get(pk=media_id)


def _final_path(media: RenderedMedia) -> Path:
    final = Path(default_storage.path(_final_name(media)))
    final.parent.mkdir(parents=True, exist_ok=True)
    return final


def _tmp_path(media: RenderedMedia) -> Path:
    token = secrets.token_hex(4)
    suffix = _suffix(media) or ".d"
    return _tmp_dir() / f"{media.key}.{socket.gethostname()}.{os.getpid()}.{token}{suffix}"


def _mark_ready(media: RenderedMedia, found: dict, times) -> RenderedMedia:
    """Record the verified output, only while this run still holds the lease (a run that was
    taken over leaves the row to the run that took it)."""
    final_name = _final_name(media)
    lease_release(
        model=RenderedMedia,
        pk=media.pk,
        owner=media.lease_owner,
        set={
            "status": RenderedMedia.Status.READY,
            "path": final_name,
            "mime_type": found["mime_type"],
            "size_bytes": _size_of(Path(default_storage.path(final_name))),
            "frame_count": found.get("frame_count"),
            "source_times_us": (
                []
                if media.kind == RenderedMedia.Kind.AUDIO
                else [int(times[i]) for i in media.spec["frames"]]
            ),
            "output_times_us": found.get("output_times_us", []),
            "duration_us": found.get("duration_us"),
            "audio_rate": found.get("audio_rate"),
            "audio_channels": found.get("audio_channels"),
            "audio_samples": found.get("audio_samples"),
            "ready_at": studio_services.now(),
        },
    )
    media.refresh_from_db()
    return media


def _mark_failed(media: RenderedMedia, exc: Exception) -> RenderedMedia:
    lease_release(
        model=RenderedMedia,
        pk=media.pk,
        owner=media.lease_owner,
        set={"status": RenderedMedia.Status.FAILED, "error": str(exc)[-4000:]},
    )
    media.refresh_from_db()
    return media


def _render_claimed(media: RenderedMedia, src: SourceRef) -> RenderedMedia:
    final = _final_path(media)
    try:
        if final.exists():
            # A previous run died after moving its verified output into place: record it.
            found = _verify(_output(media, final), src.frame_times_us)
        else:
            _remove_stale_temps(media.key)
            found = _render_to(media, src, final)
    except RENDER_ERRORS as exc:
        return _mark_failed(media, exc)
    except soft_time_limit():
        # Another attempt would run into the same limit: fail now, with the reason, rather than
        # leave the lease to run out and the sweeper to try again.
        return _mark_failed(media, RenderTooLong(_too_long_message()))
    return _mark_ready(media, found, src.frame_times_us)


class RenderTooLong(RuntimeError):
    pass


def _too_long_message() -> str:
    from django.conf import settings

    return (
        f"the render was stopped at the task's soft time limit of "
        f"{settings.CELERY_TASK_SOFT_TIME_LIMIT} s (CELERY_TASK_SOFT_TIME_LIMIT)"
    )


def media_render(*, media_id: int) -> RenderedMedia | None:
    """Render one medium if it is not ready. Safe to run twice, concurrently or after a crash."""
    media = RenderedMedia.objects.select_related("video").filter(pk=media_id).first()
    if media is None or media.status == RenderedMedia.Status.READY:
        return media
    claimed = _claim(media_id)
    if claimed is None:
        return RenderedMedia.objects.filter(pk=media_id).first()
    try:
        with _leases_kept([claimed]):
            return _render_claimed(claimed, _source_ref(claimed.video))
    except soft_time_limit():
        # Wherever the limit strikes once the lease is ours (before the render, or while the
        # lease is handed back), the medium fails with the reason; a no-op if it is recorded.
        return _mark_failed(claimed, RenderTooLong(_too_long_message()))


@contextlib.contextmanager
def _leases_kept(media: list[RenderedMedia]):
    with contextlib.ExitStack() as stack:
        for m in media:
            stack.enter_context(lease_kept(model=RenderedMedia, pk=m.pk, owner=m.lease_owner))
        yield


def media_render_group(*, media_ids: Iterable[int]) -> list[RenderedMedia]:
    """Render several media of one source from a single decode (for example a step's clip and its
    frame set). Anything the shared run cannot finish is rendered on its own, so the outcome is
    the same as rendering each medium separately — only faster."""
    claimed = [m for m in (_claim(i) for i in dict.fromkeys(media_ids)) if m is not None]
    if len({m.video_id for m in claimed}) > 1:
        raise ValueError("a render group holds media of one source video")
    if not claimed:
        return []
    with _leases_kept(claimed):
        return _render_group(claimed)


def _render_group(claimed: list[RenderedMedia]) -> list[RenderedMedia]:
    src = _source_ref(claimed[0].video)
    done: list[RenderedMedia] = []
    fresh = [m for m in claimed if not _final_path(m).exists()]
    for media in claimed:
        if media not in fresh:
            done.append(_render_claimed(media, src))  # only records the published file
    if len(fresh) > 1:
        temps = {m.pk: _tmp_path(m) for m in fresh}
        for m in fresh:
            _remove_stale_temps(m.key)
        outputs = {}
        for m in fresh:
            with contextlib.suppress(*RENDER_ERRORS):  # its reason is recorded alone, below
                outputs[m.pk] = _output(m, temps[m.pk])
        try:
            render(src, list(outputs.values()))
            for media in [m for m in fresh if m.pk in outputs]:
                try:
                    found = _verify(outputs[media.pk], src.frame_times_us)
                    _publish(temps[media.pk], _final_path(media))
                except RENDER_ERRORS:
                    continue  # rendered alone below
                done.append(_mark_ready(media, found, src.frame_times_us))
                fresh.remove(media)
        except RENDER_ERRORS:
            pass  # every medium is rendered alone below
        finally:
            for path in temps.values():
                _remove(path)
    done += [_render_claimed(media, src) for media in fresh]
    return done


def _render_to(media: RenderedMedia, src: SourceRef, final: Path) -> dict:
    tmp = _tmp_path(media)
    output = _output(media, tmp)
    try:
        try:
            render(src, [output])
            found = _verify(output, src.frame_times_us)
        except RenderVerificationError:
            # Seeking relies on the keyframe index; decoding from the start cannot miss a frame.
            _remove(tmp)
            render(src, [output], seek=False)
            found = _verify(output, src.frame_times_us)
        _publish(tmp, final)
    finally:
        _remove(tmp)
    return found


def _publish(tmp: Path, final: Path) -> None:
    """Move a verified output to its final name, atomically and at most once."""
    if tmp.is_dir():
        try:
            os.rename(tmp, final)  # fails if another run already published this key
        except OSError:
            if not final.exists():
                raise
    else:
        with contextlib.suppress(FileExistsError):
            os.link(tmp, final)  # never replaces an existing file
