"""Render profiles: what a medium is encoded as (a clip, a frame set or sound alone).

A profile's fields are part of every spec rendered with it (``media.renders.media_spec``), so a
silent profile's fields stay as they are: changing them would change the key of every medium.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from media.audio import AUDIO_FORMATS, AudioFormat
from media.windows import FRAME_BUDGET

# Clips above this size are sent as fixed-QP all-intra H.264 (paper, appendix F.1: "15 MB").
TRANSMISSION_MAX_BYTES = 15 * 1024 * 1024
STRETCH_MIN_DURATION_US = 2_100_000


@dataclass(frozen=True)
class Profile:
    name: str
    kind: str  # "clip", "frames" or "audio"
    max_short_side: int = 720
    crf: int = 20
    preset: str = "veryfast"
    # False: no sound. Otherwise the name of the sound's format (media.audio.AUDIO_FORMATS).
    audio: bool | str = False
    min_duration_us: int = 0
    intra_qp: int | None = None
    frame_count: int = FRAME_BUDGET

    @property
    def audio_format(self) -> AudioFormat | None:
        return AUDIO_FORMATS[self.audio] if self.audio else None


PROFILES = {
    p.name: p
    for p in (
        Profile("clip", "clip"),
        Profile("clip_audio", "clip", audio="aac48k"),
        Profile("clip_min2100", "clip", min_duration_us=STRETCH_MIN_DURATION_US),
        Profile("clip_intra", "clip", intra_qp=20),
        Profile("frames16", "frames"),
        # The frame set and, beside it, the window's sound as 16 kHz WAV (omni-modal models that
        # take images and an ``input_audio`` part): the same frames as ``frames16``.
        Profile("frames16_wav16k", "frames", audio="wav16k"),
        Profile("audio_wav16k", "audio", audio="wav16k"),
        Profile("audio_flac16k", "audio", audio="flac16k"),
    )
}


class ProfileMismatch(ValueError):
    pass


class AudioUnavailable(ProfileMismatch):
    """A profile with sound asked of a source that has none."""


def transmission_profile(*, sizes_bytes: Iterable[int]) -> str:
    """The clip profile for a set of *paired* conditions: one rule for all of them, so a pair is
    never compared across two encodings."""
    return "clip_intra" if any(s > TRANSMISSION_MAX_BYTES for s in sizes_bytes) else "clip"


SOUND_SUFFIX = "_wav16k"  # a frame set's profile with the window's sound beside its frames


def frames_profile(count: int, *, sound: bool = False) -> str:
    """The name of the profile of ``count`` frames (``frames16`` is the paper's budget), with
    the window's sound as 16 kHz WAV beside them when ``sound`` (``frames16_wav16k``)."""
    if not 1 <= count <= 64:
        raise ProfileMismatch(f"a frame set holds 1 to 64 frames, not {count}")
    return f"frames{count}{SOUND_SUFFIX if sound else ''}"


def profile_named(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        # Frame sets of another size (an endpoint that takes N images): framesN, 1 <= N <= 64,
        # and framesN_wav16k with the window's sound.
        count, sound = name[6:], name.endswith(SOUND_SUFFIX)
        count = count[: -len(SOUND_SUFFIX)] if sound else count
        if name.startswith("frames") and count.isdigit() and 1 <= int(count) <= 64:
            audio = "wav16k" if sound else False
            return Profile(name, "frames", frame_count=int(count), audio=audio)
        raise ProfileMismatch(
            f"unknown render profile {name!r}; known: {sorted(PROFILES)}"
        ) from None
