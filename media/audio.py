"""Sound of a window: which stretch of a source's audio a clip or an audio rendering holds, the
ffmpeg filters that cut it to the sample, and reading back what an output holds.

The rule (one rule for a clip's sound track and for an audio-only rendering): a window's frames
come in runs of consecutive source frames (one run per window segment). A run's sound starts at
its first frame's time and lasts until its last frame's end — the instant the clip's picture
moves on (``media.timebase.frame_duration_us``) — so sound and picture end together. Where that
end lies past the window's own end (a window ending between two frames), the source's sound stops
at the window's end and silence fills up to the frame's end: no sample after a cutoff is ever
heard. Where the source has no sound for part of a run (its audio stream starts after the picture
or ends before it), that part is silence, so sound stays in step with the picture. Runs follow
each other without gaps, exactly like the clip's picture.

Times are integer microseconds on the source's timeline (``media.timebase``); ffmpeg reads the
file on its own timeline (``-copyts -start_at_zero``), which is the source timeline shifted by
the video's origin. Every cut is made in whole samples at the output rate: a run of ``d`` µs at
``rate`` Hz is ``round(d · rate / 10^6)`` samples, exactly.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from media.ffmpeg import FFmpegError, input_args, run_ffmpeg
from media.timebase import US_PER_SECOND, frame_duration_us

# Decoding starts this long before a run's first sample (at the keyframe at or before it), so
# the decoder's first frames, which lack the overlap of the frames before them, are never used.
AUDIO_PREROLL_US = 200_000


@dataclass(frozen=True)
class AudioFormat:
    """How the sound of an output is encoded; its fields are part of the medium's spec."""

    codec: str  # ffmpeg's encoder, also the decoder name the check expects back
    container: str  # "mp4" (the sound track of a clip), "wav" or "flac"
    rate: int  # samples per second of the output
    layouts: str  # channel layouts the output may take, ffmpeg's "a|b" form
    bitrate: str = ""  # lossy codecs only
    # How far the decoded sample count may stray from the window's: an encoder working in frames
    # may pad its last one (AAC: one frame of 1024 samples); PCM and FLAC hold exactly the samples.
    tolerance_samples: int = 0

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def channel_counts(self) -> tuple[int, ...]:
        return tuple(channel_count(name) or 0 for name in self.layouts.split("|"))

    @property
    def mime_type(self) -> str:
        return {"wav": "audio/wav", "flac": "audio/flac", "mp4": "video/mp4"}[self.container]

    @property
    def demuxer(self) -> str:
        return {"wav": "wav", "flac": "flac", "mp4": "mov"}[self.container]


AUDIO_FORMATS = {
    # A clip's sound track: AAC at 48 kHz, mono or stereo as the source (more channels are mixed
    # down to stereo): what players and video-reading model servers take.
    "aac48k": AudioFormat("aac", "mp4", 48_000, "mono|stereo", "96k", tolerance_samples=1024),
    # Sound alone, as omni-modal models take it (Qwen2.5-Omni and its kin read 16 kHz mono; an
    # OpenAI-compatible ``input_audio`` part carries WAV): 16-bit PCM WAV, or FLAC (lossless).
    "wav16k": AudioFormat("pcm_s16le", "wav", 16_000, "mono"),
    "flac16k": AudioFormat("flac", "flac", 16_000, "mono"),
}


# --- what a file's header says about its sound ---------------------------------------------------

_AUDIO_STREAM_RE = re.compile(
    r"Stream #0:\d+[^:\n]*: Audio: (?P<codec>[A-Za-z0-9_]+)[^\n]*?, (?P<rate>\d{1,7}) Hz, "
    r"(?P<layout>[^,\n]+)"
)
_NAMED_LAYOUTS = {"mono": 1, "stereo": 2, "downmix": 2, "binaural": 2, "quad": 4,
                  "hexagonal": 6, "cube": 8, "octagonal": 8, "hexadecagonal": 16}  # fmt: skip


@dataclass(frozen=True)
class AudioStream:
    codec: str
    rate: int
    channels: int | None  # None when ffmpeg names a layout this table does not know


def channel_count(layout: str) -> int | None:
    """Channels of a layout as ffmpeg prints it: "mono", "stereo", "5.1(side)", "7.1.4",
    "3 channels"…; None for a name it does not know."""
    layout = layout.strip()
    counted = re.fullmatch(r"(\d{1,3}) channels", layout)
    if counted:
        return int(counted[1])
    base = layout.split("(", 1)[0].strip()
    if base in _NAMED_LAYOUTS:
        return _NAMED_LAYOUTS[base]
    if re.fullmatch(r"\d{1,2}(?:\.\d{1,2})+", base):
        return sum(int(part) for part in base.split("."))
    return None


def parse_audio_stream(header: str) -> AudioStream | None:
    """The first audio stream of the input ffmpeg describes in ``header`` (its log), or None.
    Output streams, which ffmpeg lists after "Output #0", are not read."""
    found = _AUDIO_STREAM_RE.search(header.split("\nOutput #0", 1)[0])
    if not found:
        return None
    return AudioStream(found["codec"], int(found["rate"]), channel_count(found["layout"]))


# --- which sound a window holds ----------------------------------------------------------------


@dataclass(frozen=True)
class AudioSpan:
    """One run's sound, in source microseconds."""

    start_us: int  # the run's first frame
    sound_stop_us: int  # where the source's sound stops: the frame's end, or the window's end
    stop_us: int  # the run's last frame's end; silence from ``sound_stop_us`` up to here

    @property
    def duration_us(self) -> int:
        return self.stop_us - self.start_us


def audio_spans(
    times_us: np.ndarray,
    indices: tuple[int, ...],
    run_starts: tuple[int, ...],
    segments: tuple[tuple[int, int], ...],
) -> tuple[AudioSpan, ...]:
    """The sound of each run of a window's frames (``media.windows.window_frames``): from its
    first frame to its last frame's end, the source's sound never past the window's segment."""
    spans = []
    for a, b in itertools.pairwise([*run_starts, len(indices)]):
        first, last = indices[a], indices[b - 1]
        start, last_t = int(times_us[first]), int(times_us[last])
        stop = last_t + frame_duration_us(times_us, last)
        # The segment holding the run; a boundary frame (a window without frames) lies before
        # the window's end, which then bounds its sound.
        limit = next((hi for lo, hi in segments if lo <= last_t < hi), segments[-1][1])
        spans.append(AudioSpan(start, max(start, min(stop, limit)), stop))
    return tuple(spans)


def span_samples(duration_us: int, rate: int) -> int:
    """Samples of ``duration_us`` at ``rate``, rounded to the nearest (halves up), exactly."""
    return (2 * duration_us * rate + US_PER_SECOND) // (2 * US_PER_SECOND)


@dataclass(frozen=True)
class AudioTrack:
    """The sound an output holds: its format and the spans of the source it is cut from."""

    format: AudioFormat
    spans: tuple[AudioSpan, ...]

    @property
    def expected_samples(self) -> int:
        return sum(span_samples(s.duration_us, self.format.rate) for s in self.spans)

    @property
    def duration_us(self) -> int:
        return sum(s.duration_us for s in self.spans)

    def as_spec(self) -> dict:
        spans = [[s.start_us, s.sound_stop_us, s.stop_us] for s in self.spans]
        return {"format": self.format.as_dict(), "spans_us": spans}

    @classmethod
    def from_spec(cls, spec: dict) -> AudioTrack:
        return cls(AudioFormat(**spec["format"]),
                   tuple(AudioSpan(*map(int, s)) for s in spec["spans_us"]))  # fmt: skip


def audio_chain(source: str, track: AudioTrack, origin_us: int, label: str) -> str:
    """Filter-graph text taking the decoded source sound at ``[source]`` to ``[label]``: resampled,
    each span cut to the sample (``atrim`` on the file's timeline, in samples of the output rate),
    silence before the source's first sample and after its sound stop, spans joined end to end."""
    fmt = track.format
    head = (f"[{source}]aresample={fmt.rate},"
            f"aformat=sample_rates={fmt.rate}:channel_layouts={fmt.layouts}")  # fmt: skip
    n = len(track.spans)
    parts = [head + (f",asplit={n}" + "".join(f"[{label}i{k}]" for k in range(n)) if n > 1
                     else f"[{label}i0]")]  # fmt: skip
    for k, span in enumerate(track.spans):
        first = span_samples(origin_us + span.start_us, fmt.rate)
        sound_end = max(first, span_samples(origin_us + span.sound_stop_us, fmt.rate))
        total = span_samples(span.duration_us, fmt.rate)
        parts.append(
            f"[{label}i{k}]atrim=start_pts={first}:end_pts={sound_end},asetpts=PTS-{first},"
            # first_pts=0: silence before a sound that starts late (a stream with an offset)
            f"aresample=async=1:first_pts=0,apad=whole_len={total},atrim=end_sample={total}"
            f"[{label}r{k}]"
        )
    joined = "".join(f"[{label}r{k}]" for k in range(n))
    concat = f"concat=n={n}:v=0:a=1," if n > 1 else ""
    parts.append(f"{joined}{concat}asetpts=N/SR/TB[{label}]")
    return ";".join(parts)


def encode_args(fmt: AudioFormat) -> list[str]:
    """Encoder arguments of a sound stream in ``fmt``."""
    args = ["-c:a", fmt.codec]
    if fmt.bitrate:
        args += ["-b:a", fmt.bitrate]
    return args


# --- reading back what an output holds -----------------------------------------------------------


@dataclass(frozen=True)
class DecodedAudio:
    stream: AudioStream
    samples: int  # decoded samples per channel


class NoSound(ValueError):
    """The file holds no audio stream, or its sound does not decode."""


def decoded_audio(path: str | os.PathLike, *, demuxer: str) -> DecodedAudio:
    """Decode the first audio stream of a file and count its samples (per channel): what the
    file's header says and what a decoder actually gets, not what a container claims."""
    args = [*input_args(Path(path), demuxer=demuxer), "-map", "0:a:0", "-ac", "1",
            "-c:a", "pcm_u8", "-f", "u8", "pipe:1"]  # fmt: skip
    try:
        result = run_ffmpeg(args, loglevel="info")
    except FFmpegError as exc:
        if "matches no streams" in exc.stderr_tail:
            raise NoSound("the file has no audio stream") from None
        raise NoSound(f"its sound does not decode: {exc.stderr_tail[-300:]}") from None
    stream = parse_audio_stream(result.stderr.decode("utf-8", "replace"))
    if stream is None:
        raise NoSound("ffmpeg names no audio stream in the file")
    return DecodedAudio(stream, len(result.stdout))  # one byte a sample: u8, one channel
