"""Frame-exact rendering with ffmpeg, and the checks every output passes before it is used.

How a window becomes exactly its frames (and why the usual ``-ss A -t D`` does not):
``-t`` converts a duration to a frame count by rounding timestamps, and is off by one frame on
about half of all clips. Here the frame-time index already says which source frames a window
holds, so ffmpeg is told *which frames*, not *how long*:

1. seek (``-ss``, ``-noaccurate_seek``) to the last keyframe at or before the first wanted frame,
   on the file's own timeline (``-copyts -start_at_zero``, the same timeline the probe indexed);
2. ``select`` passes only frames whose time lies between the midpoints around each wanted run of
   frames — midpoints are half a frame interval away from any frame, so a microsecond of rounding
   can never let a neighbour in or keep a wanted frame out;
3. ``-frames:v N`` stops decoding as soon as the N wanted frames are out (with sound, a ``trim``
   half a frame after the last wanted frame ends the decoded pictures instead);
4. ``settb=1/1000000`` + ``setpts`` rebase the clip to 0 and remove the gaps between runs
   (Previous-step), in integer microseconds, so VFR timing is kept exactly.

One ffmpeg process can write several outputs from one decode (a clip and its 16-frame set): the
decoded frames are ``split`` and each branch selects its own frames. Rotation is applied by
ffmpeg's autorotate before our filters, so outputs are upright and carry no display matrix.
"""

from __future__ import annotations

import itertools
import shutil
import struct
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from media.audio import (
    AUDIO_PREROLL_US,
    AudioTrack,
    NoSound,
    audio_chain,
    decoded_audio,
    encode_args,
)
from media.ffmpeg import file_url, input_args, run_ffmpeg
from media.outputs import container_index
from media.probe import MediaRejected
from media.timebase import US_PER_SECOND, frame_duration_us

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class RenderVerificationError(RuntimeError):
    """A rendered output is not what its spec says; it must not be marked ready."""


@dataclass(frozen=True)
class SourceRef:
    """What the renderer needs to know about a source file."""

    path: Path
    demuxer: str
    origin_us: int
    frame_times_us: np.ndarray
    keyframe_times_us: np.ndarray
    width: int  # as displayed
    height: int
    has_audio: bool


@dataclass(frozen=True)
class ClipOutput:
    path: Path
    indices: tuple[int, ...]  # source frames, time order, each once
    run_starts: tuple[int, ...]  # positions in ``indices`` where a new segment begins
    size: tuple[int, int]
    crf: int = 20
    preset: str = "veryfast"
    audio: AudioTrack | None = None  # the window's sound, cut to the same instants as the frames
    min_duration_us: int = 0  # stretch the timeline (never the frames) to at least this
    intra_qp: int | None = None  # fixed-QP all-intra H.264 instead of CRF with a GOP


@dataclass(frozen=True)
class FramesOutput:
    directory: Path
    indices: tuple[int, ...]  # source frames in presentation order; may repeat
    size: tuple[int, int]
    # The window's sound, written beside the images (``sound_file``), cut by the clip's rule
    audio: AudioTrack | None = None

    @property
    def sound_path(self) -> Path | None:
        return self.directory / sound_file(self.audio.format.container) if self.audio else None


def sound_file(container: str) -> str:
    """The name of the sound file in a frame-set folder (``sound.wav``)."""
    return f"sound.{container}"


@dataclass(frozen=True)
class AudioOutput:
    """Sound alone (WAV or FLAC): the window's sound under the same rule as a clip's track."""

    path: Path
    track: AudioTrack


Output = ClipOutput | FramesOutput | AudioOutput


def output_size(width: int, height: int, max_short_side: int) -> tuple[int, int]:
    """Display size scaled down (never up) so the short side is at most the cap; even numbers."""
    short = min(width, height)
    scale = Fraction(min(max_short_side, short), short)

    def even(x: Fraction) -> int:
        return max(2, round(x / 2) * 2)

    return even(width * scale), even(height * scale)


# --- timing -------------------------------------------------------------------------------------


def clip_output_times(times: np.ndarray, clip: ClipOutput) -> tuple[list[int], int, Fraction]:
    """Output presentation time of every clip frame, the clip's duration and the stretch factor.

    Runs after the first continue right after the previous run's last frame has been shown for
    its source duration: the gap between segments is removed, nothing else moves.
    """
    out, offset = [], 0
    run_starts = set(clip.run_starts)
    first = int(times[clip.indices[0]])
    for pos, index in enumerate(clip.indices):
        t = int(times[index])
        if pos and pos in run_starts:
            prev = clip.indices[pos - 1]
            shown_until = out[-1] + frame_duration_us(times, prev)
            offset = t - first - shown_until
        out.append(t - first - offset)
    duration = out[-1] + frame_duration_us(times, clip.indices[-1])
    factor = Fraction(1)
    if clip.min_duration_us and duration < clip.min_duration_us:
        factor = Fraction(clip.min_duration_us, duration)
    stretched = [int(t * factor) for t in out]  # truncation, like setpts
    return stretched, int(duration * factor), factor


def _runs(indices: tuple[int, ...]) -> list[tuple[int, int]]:
    """Consecutive source frame indices grouped into (first, last) runs."""
    runs, start = [], indices[0]
    for a, b in itertools.pairwise(indices):
        if b != a + 1:
            runs.append((start, a))
            start = b
    runs.append((start, indices[-1]))
    return runs


def _select_expr(src: SourceRef, indices) -> str:
    """An ffmpeg ``select`` expression passing exactly these source frames."""
    times = src.frame_times_us
    terms = []
    for first, last in _runs(tuple(sorted(set(indices)))):
        lo = times[first] - (times[first] - times[first - 1]) / 2 if first else times[first] - 500
        hi = (
            times[last] + (times[last + 1] - times[last]) / 2
            if last + 1 < len(times)
            else (times[last] + 500)
        )
        terms.append(
            f"between(t\\,{(src.origin_us + lo) / US_PER_SECOND:.7f}"
            f"\\,{(src.origin_us + hi) / US_PER_SECOND:.7f})"
        )
    return "+".join(terms)


def _end_seconds(src: SourceRef, last: int) -> float | None:
    """Halfway from frame ``last`` to the next, on the file's timeline (None: the last frame)."""
    times = src.frame_times_us
    if last + 1 >= len(times):
        return None
    return (src.origin_us + (int(times[last]) + int(times[last + 1])) / 2) / US_PER_SECOND


def _seek_seconds(src: SourceRef, t: int) -> float | None:
    """The keyframe at or before source time ``t`` on the file's timeline (None: the first)."""
    keys = src.keyframe_times_us
    k = int(np.searchsorted(keys, t, side="right")) - 1
    if k <= 0:
        return None  # the first keyframe: no seek needed
    return (src.origin_us + int(keys[k])) / US_PER_SECOND


def _setpts_expr(times: np.ndarray, clip: ClipOutput, factor: Fraction) -> str:
    """Integer-microsecond rebase to 0 with the gaps between runs removed."""
    out, _, _ = clip_output_times(times, replace(clip, min_duration_us=0))
    base = "PTS-STARTPTS"
    shifts = []
    first = int(times[clip.indices[0]])
    for pos in clip.run_starts[1:]:
        rel = int(times[clip.indices[pos]]) - first
        gap = rel - out[pos] - sum(g for _, g in shifts)
        midpoint = rel - (rel - (int(times[clip.indices[pos - 1]]) - first)) // 2
        shifts.append((midpoint, gap))
    expr = base + "".join(f"-gt({base}\\,{m})*{g}" for m, g in shifts)
    if factor != 1:
        expr = f"({expr})*{factor.numerator}/{factor.denominator}"
    return expr


# --- rendering ------------------------------------------------------------------------------------


def _clip_branch(
    k: int, src: SourceRef, clip: ClipOutput, alone: bool, sound: str = ""
) -> tuple[str, list]:
    """Filter-graph branch and output arguments of one clip (``sound``: its audio's label)."""
    w, h = clip.size
    _, _, factor = clip_output_times(src.frame_times_us, clip)
    select = "" if alone else f"select={_select_expr(src, clip.indices)},"
    # ``-frames:v`` stops a silent clip once its frames are out; it would close a clip with sound
    # before the sound encoder hands over its last frames, so there the decoded pictures end
    # instead (``render``: a ``trim`` ahead of the selection).
    limit = [] if clip.audio else ["-frames:v", str(len(clip.indices))]
    graph = (
        f"[s{k}]{select}settb=1/1000000,"
        f"setpts={_setpts_expr(src.frame_times_us, clip, factor)},"
        f"scale={w}:{h}:flags=bicubic,format=yuv420p[o{k}]"
    )
    args = ["-map", f"[o{k}]", *limit,
            "-fps_mode", "passthrough", "-enc_time_base:v", "1/1000000",
            "-c:v", "libx264", "-preset", clip.preset, "-pix_fmt", "yuv420p"]  # fmt: skip
    if clip.intra_qp is not None:
        args += ["-qp", str(clip.intra_qp), "-g", "1", "-bf", "0", "-x264-params", "keyint=1"]
    else:
        args += ["-crf", str(clip.crf)]
    if clip.audio is not None:
        if factor != 1:
            raise ValueError("a stretched timeline has no honest sound track")
        args += ["-map", f"[{sound}]", *encode_args(clip.audio.format)]
    else:
        args += ["-an"]
    args += ["-sn", "-dn", "-map_metadata", "-1", "-movflags", "+faststart",
             "-video_track_timescale", "1000000", "-f", "mp4", "-y",
             file_url(clip.path)]  # fmt: skip
    return graph, args


def _frames_branch(
    k: int, src: SourceRef, frames: FramesOutput, alone: bool, sound: str = ""
) -> tuple[str, list]:
    """Filter-graph branch and output arguments of one frame set (each distinct frame once)."""
    w, h = frames.size
    unique = sorted(set(frames.indices))
    select = "" if alone else f"select={_select_expr(src, unique)},"
    graph = f"[s{k}]{select}scale={w}:{h}:flags=bicubic,format=rgb24[o{k}]"
    frames.directory.mkdir(parents=True, exist_ok=True)
    args = ["-map", f"[o{k}]", "-frames:v", str(len(unique)), "-fps_mode", "passthrough",
            "-c:v", "png", "-f", "image2", "-start_number", "0", "-y",
            file_url(frames.directory / "u%03d.png")]  # fmt: skip
    if frames.audio is not None:
        # The window's sound: an output file of its own in the same folder.
        args += _audio_branch(AudioOutput(frames.sound_path, frames.audio), sound)
    return graph, args


def _audio_branch(output: AudioOutput, sound: str) -> list[str]:
    """Output arguments of sound alone (its filters come from ``media.audio.audio_chain``)."""
    fmt = output.track.format
    return ["-map", f"[{sound}]", *encode_args(fmt), "-map_metadata", "-1",
            "-fflags", "+bitexact", "-flags:a", "+bitexact",
            "-f", fmt.container, "-y", file_url(output.path)]  # fmt: skip


def _track(output) -> AudioTrack | None:
    return output.track if isinstance(output, AudioOutput) else getattr(output, "audio", None)


def render(src: SourceRef, outputs: list[Output], *, seek: bool = True) -> None:
    """Write every output in one ffmpeg run (one decode of the union of their frames, and of the
    sound where an output carries it)."""
    if not outputs:
        return
    visual = [o for o in outputs if not isinstance(o, AudioOutput)]
    sounding = [o for o in outputs if _track(o) is not None]
    if sounding and not src.has_audio:
        raise MediaRejected("the source video has no sound track")
    starts = []  # source times decoding must start at or before
    if visual:
        wanted = sorted({i for o in visual for i in o.indices})
        starts.append(int(src.frame_times_us[wanted[0]]))
    starts += [_track(o).spans[0].start_us - AUDIO_PREROLL_US for o in sounding]
    seek_to = _seek_seconds(src, min(starts)) if seek else None
    graph: list[str] = []
    if visual:
        labels = "".join(f"[s{k}]" for k in range(len(visual)))
        split = f",split={len(visual)}{labels}" if len(visual) > 1 else "[s0]"
        # With sound, the decoded pictures end after the last wanted frame (half a frame
        # interval on), so the picture branches end without ``-frames:v`` and decoding stops.
        end = _end_seconds(src, wanted[-1]) if sounding else None
        trim = f"trim=end={end:.7f}," if end is not None else ""
        graph.append(f"[0:v]{trim}select={_select_expr(src, wanted)}{split}")
    if len(sounding) > 1:
        graph.append(f"[0:a:0]asplit={len(sounding)}"
                     + "".join(f"[d{k}]" for k in range(len(sounding))))  # fmt: skip
    out_args: list[str] = []
    alone = len(visual) == 1  # the first select already passes exactly this output's frames
    heard, seen = itertools.count(), itertools.count()  # positions among sounding / visual
    for output in outputs:
        sound, track = "", _track(output)
        if track is not None:
            j = next(heard)
            sound = f"a{j}"
            source = f"d{j}" if len(sounding) > 1 else "0:a:0"
            graph.append(audio_chain(source, track, src.origin_us, sound))
        if isinstance(output, AudioOutput):
            out_args += _audio_branch(output, sound)
            continue
        branch = _clip_branch if isinstance(output, ClipOutput) else _frames_branch
        part, args = branch(next(seen), src, output, alone, sound)
        graph.append(part)
        out_args += args
    args = ["-copyts", "-start_at_zero", *input_args(src.path, demuxer=src.demuxer,
                                                       seek_seconds=seek_to)]  # fmt: skip
    if seek_to is not None:
        # Land on the keyframe and keep every decoded frame: select does the exact cut.
        args.insert(args.index("-ss"), "-noaccurate_seek")
    run_ffmpeg([*args, "-filter_complex", ";".join(graph), *out_args], loglevel="error")
    for output in outputs:
        if isinstance(output, FramesOutput):
            _arrange_frames(output)


def _arrange_frames(output: FramesOutput) -> None:
    """Name the frames by position (00.png …) in presentation order; repeats are copies."""
    unique = sorted(set(output.indices))
    files = {index: output.directory / f"u{n:03d}.png" for n, index in enumerate(unique)}
    for position, index in enumerate(output.indices):
        shutil.copyfile(files[index], output.directory / f"{position:02d}.png")
    for path in files.values():
        path.unlink()


# --- verification ---------------------------------------------------------------------------------


def verify_clip(clip: ClipOutput, times: np.ndarray) -> dict:
    """Check the written clip against its spec: frame count, every frame time, size, upright.

    The times come from the container's packet table (``media.outputs.container_index``): exact for
    the H.264 we just wrote, and a fraction of the cost of decoding the clip again.
    """
    expected, duration, _ = clip_output_times(times, clip)
    try:
        found = container_index(clip.path)
    except MediaRejected as exc:
        raise RenderVerificationError(f"the rendered clip cannot be read: {exc}") from None
    got = list(found.times_us)
    if len(got) != len(expected):
        raise RenderVerificationError(
            f"the clip holds {len(got)} frames, its window {len(expected)}"
        )
    worst = max(abs(a - b) for a, b in zip(got, expected, strict=True))
    if worst > 2:
        raise RenderVerificationError(
            f"clip frame times differ from the source by up to {worst} µs"
        )
    if (found.width, found.height) != clip.size or found.rotation:
        raise RenderVerificationError(
            f"the clip is {found.width}x{found.height} rotated {found.rotation}, "
            f"expected {clip.size[0]}x{clip.size[1]} upright"
        )
    result = {"frame_count": len(got), "output_times_us": got, "duration_us": duration,
              "mime_type": found.mime_type}  # fmt: skip
    if clip.audio is None:
        if found.has_audio:
            raise RenderVerificationError("the clip has a sound track; its profile is silent")
        return result
    if clip.audio.duration_us != duration:
        raise RenderVerificationError(
            f"the clip's sound lasts {clip.audio.duration_us} µs, its picture {duration} µs"
        )
    return result | verify_track(clip.path, clip.audio)


def verify_track(path: Path, track: AudioTrack) -> dict:
    """Decode the sound of an output and count it: codec, rate and channels as its format says,
    and as many samples as its spans at that rate (within ``tolerance_samples``: one AAC frame)."""
    fmt = track.format
    try:
        found = decoded_audio(path, demuxer=fmt.demuxer)
    except NoSound as exc:
        raise RenderVerificationError(f"the rendered sound cannot be read: {exc}") from None
    stream = found.stream
    if stream.codec != fmt.codec or stream.rate != fmt.rate:
        raise RenderVerificationError(
            f"the sound is {stream.codec} at {stream.rate} Hz, "
            f"expected {fmt.codec} at {fmt.rate} Hz"
        )
    if stream.channels not in fmt.channel_counts:
        raise RenderVerificationError(
            f"the sound has {stream.channels} channels, expected {fmt.layouts}"
        )
    expected = track.expected_samples
    if abs(found.samples - expected) > fmt.tolerance_samples:
        raise RenderVerificationError(
            f"the sound holds {found.samples} samples, its window {expected} "
            f"({track.duration_us} µs at {fmt.rate} Hz; at most {fmt.tolerance_samples} apart)"
        )
    return {"audio_rate": stream.rate, "audio_channels": stream.channels,
            "audio_samples": found.samples}  # fmt: skip


def verify_audio(output: AudioOutput) -> dict:
    """Check sound alone as frames are checked: decoded and counted against its window."""
    found = verify_track(output.path, output.track)
    return found | {"mime_type": output.track.format.mime_type,
                    "duration_us": output.track.duration_us}  # fmt: skip


def _png_size(path: Path) -> tuple[int, int]:
    with open(path, "rb") as handle:
        head = handle.read(24)
        handle.seek(-12, 2)
        tail = handle.read(12)
    if head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR" or tail[4:8] != b"IEND":
        raise RenderVerificationError(f"{path.name} is not a complete PNG")
    return struct.unpack(">II", head[16:24])


def verify_frames(output: FramesOutput) -> dict:
    files = sorted(output.directory.glob("*.png"))
    if len(files) != len(output.indices):
        raise RenderVerificationError(
            f"the frame set holds {len(files)} images, expected {len(output.indices)}"
        )
    for path in files:
        if _png_size(path) != output.size:
            raise RenderVerificationError(f"{path.name} is not {output.size[0]}x{output.size[1]}")
    found = {"frame_count": len(files), "mime_type": "image/png"}
    if output.audio is None:
        return found
    return found | verify_track(output.sound_path, output.audio)
