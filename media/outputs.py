"""Files this project has just rendered, checked from their container's packet table.

``container_index`` lists the video packets of an output (``-c copy -f framecrc``, nothing
decoded): they must be exactly the frames expected, so a doubtful file is refused, never accepted.
Sources from outside go through ``media.probe.probe_file`` instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from django.conf import settings

from media.audio import parse_audio_stream
from media.ffmpeg import input_args
from media.probe import _NOPTS, MediaRejected, _rotation, _run_on_video, sniff_container
from media.timebase import US_PER_SECOND

_TB_LINE_RE = re.compile(r"^#tb 0: (?P<num>\d+)/(?P<den>\d+)$", re.M)
_DIMENSIONS_RE = re.compile(r"^#dimensions 0: (?P<w>\d+)x(?P<h>\d+)$", re.M)


@dataclass(frozen=True)
class ContainerIndex:
    mime_type: str
    width: int
    height: int
    rotation: int
    times_us: tuple[int, ...]  # presentation times, in order, the first at 0
    has_audio: bool = False  # the file also holds a sound stream


def container_index(path: str | os.PathLike) -> ContainerIndex:
    """The video packets of a file we wrote ourselves, read from its container in one fast pass.

    MediaRejected if the file does not demux (for example a truncated MP4 without its index).
    """
    path = Path(path)
    demuxer, mime_type = sniff_container(path)
    result = _run_on_video(
        [*input_args(path, demuxer=demuxer), "-map", "0:v:0", "-c", "copy", "-f", "framecrc", "-"],
        refusal="the file does not demux",
        timeout=settings.FFMPEG_TIMEOUT_SECONDS,
    )
    table = result.stdout.decode("ascii", "replace")
    tb, dims = _TB_LINE_RE.search(table), _DIMENSIONS_RE.search(table)
    if not tb or not dims:
        raise MediaRejected("the file has no video stream")
    pts = []
    for line in table.splitlines():
        if line and not line.startswith("#"):
            fields = [f.strip() for f in line.split(",")]
            if fields[2] == "NOPTS" or int(fields[2]) == _NOPTS:
                raise MediaRejected("a video packet has no presentation time")
            pts.append(int(fields[2]))
    if not pts:
        raise MediaRejected("the video stream holds no frames")
    pts.sort()
    log = result.stderr.decode("utf-8", "replace")
    scale = Fraction(int(tb["num"]), int(tb["den"])) * US_PER_SECOND
    times = tuple(round((p - pts[0]) * scale) for p in pts)
    return ContainerIndex(
        mime_type=mime_type,
        width=int(dims["w"]),
        height=int(dims["h"]),
        rotation=_rotation(log),
        times_us=times,
        has_audio=parse_audio_stream(log) is not None,
    )
