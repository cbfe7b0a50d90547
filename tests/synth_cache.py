"""Generated test videos made once and kept, shared by parallel test processes and later runs.

A generated video is a function of media/synth.py, the ffmpeg that encodes it and the options
given, so its cache key is their hash: a change to any of them makes a new video. A copy of the
cached file is handed out (a test may move or truncate its own). ``TEST_VIDEO_CACHE`` chooses the
folder (default ``~/.cache/intent-studio/synth-videos``); ``TEST_VIDEO_CACHE=off`` generates every
video anew. The tests of the generator itself call ``media.synth.synth_video`` directly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path


def _folder() -> Path | None:
    chosen = os.environ.get("TEST_VIDEO_CACHE", "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    return Path.home() / ".cache" / "intent-studio" / "synth-videos"


def _key(options: dict) -> str:
    from media import synth
    from media.ffmpeg import ffmpeg_binary

    binary = Path(ffmpeg_binary()).resolve()
    stat = binary.stat()
    digest = hashlib.sha256()
    digest.update(Path(synth.__file__).read_bytes())
    digest.update(f"{binary}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    digest.update(json.dumps(options, sort_keys=True, default=list).encode())
    return digest.hexdigest()[:32]


def synth_video(path: str | os.PathLike, **options):
    """``media.synth.synth_video(path, **options)``, from the cache when it holds that video."""
    from media.synth import SynthVideo
    from media.synth import synth_video as generate

    path = Path(path)
    folder = _folder()
    if folder is None:
        return generate(path, **options)
    key = _key(options)
    video, facts = folder / f"{key}.mp4", folder / f"{key}.json"
    if not facts.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder, prefix=".making-") as making:
            made = generate(Path(making) / "video.mp4", **options)
            record = {k: v for k, v in dataclasses.asdict(made).items() if k != "path"}
            os.replace(made.path, video)
            # The facts are written last: a key with its facts has its whole video.
            (Path(making) / "facts.json").write_text(json.dumps(record))
            os.replace(Path(making) / "facts.json", facts)
    record = json.loads(facts.read_text())
    shutil.copyfile(video, path)
    record["frame_times_us"] = tuple(record["frame_times_us"])
    return SynthVideo(path=path, **record)
