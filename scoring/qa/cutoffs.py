"""A predictive turn's media end before its decision cutoff: checked from the render spec when
the run is started, and from the rendered medium when the turn is asked.

Picture: no frame whose presentation starts at or after the cutoff. Sound: no stretch of the
source's sound past it — every span of the medium's track stops hearing the source at or before
the cutoff (``media.audio``: where the last frame lasts past the window's end, silence fills), and
the rendered sound holds exactly as many samples as its spans (within the format's tolerance:
one AAC frame for a clip's track, none for WAV).
"""

from __future__ import annotations

from media.audio import AudioTrack
from media.models import RenderedMedia
from scoring.runs.media import MediaNotReady
from scoring.runs.services import RunError


def cutoff_check(spec: dict, cutoff_us: int, times, where: str) -> None:
    """From a medium's render spec (before it is rendered); RunError when it would show a frame
    at or after the cutoff or let the source's sound be heard past it."""
    late = [int(times[i]) for i in spec.get("frames", []) if times[i] >= cutoff_us]
    if late or not spec.get("frames"):
        raise RunError(
            f"{where}: the media of a turn with cutoff {cutoff_us} µs would show "
            f"{len(late)} frame(s) at or after it"
        )
    heard = [stop for _start, stop, _end in (spec.get("audio") or {}).get("spans_us", [])]
    if any(stop > cutoff_us for stop in heard):
        raise RunError(
            f"{where}: the sound of a turn with cutoff {cutoff_us} µs would reach "
            f"{max(heard)} µs of the source"
        )


class CutoffBreach(MediaNotReady):
    """A rendered medium of a predictive turn does not hold what its spec promises: the medium
    is marked failed with the reason, and the turn is not asked (it waits for its medium, as
    any turn whose medium failed: the run's page offers to render it again)."""


def rendered_sound_check(media: RenderedMedia, cutoff_us: int) -> None:
    """When the turn is asked: the medium's sound, as rendered and counted, is its spans' and
    its spans stop at or before the cutoff."""
    audio = media.spec.get("audio")
    if not audio:
        return
    track = AudioTrack.from_spec(audio)
    late = [s.sound_stop_us for s in track.spans if s.sound_stop_us > cutoff_us]
    counted = media.audio_samples
    why = ""
    if late:
        why = f"its sound reaches {max(late)} µs of the source, past the cutoff {cutoff_us} µs"
    elif counted is None or abs(counted - track.expected_samples) > track.format.tolerance_samples:
        why = f"its rendered sound holds {counted} samples, its spans {track.expected_samples}"
    if why:
        RenderedMedia.objects.filter(pk=media.pk).update(
            status=RenderedMedia.Status.FAILED, error=f"predictive turn: {why}"
        )
        raise CutoffBreach(f"medium {media.key[:12]}: {why}")
