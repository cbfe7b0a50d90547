"""manage.py synth_video PATH: write a test video whose every frame shows its own number."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from media.services import file_sha256
from media.synth import synth_video


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise CommandError(f"--size must look like 640x360, not {text!r}") from None
    if width < 64 or height < 64 or width % 2 or height % 2:
        raise CommandError("--size needs even numbers of at least 64")
    return width, height


class Command(BaseCommand):
    help = (
        "Write an H.264 MP4 with its frame number and time burned into every picture, to try "
        "the import, the workspace and the renderer (the demo videos are made the same way)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the .mp4 file to write")
        parser.add_argument("--seconds", type=float, default=10.0)
        parser.add_argument("--fps", type=int, default=30)
        parser.add_argument("--size", default="640x360", help="displayed size, e.g. 640x360")
        parser.add_argument("--vfr", action="store_true", help="a variable frame rate")
        parser.add_argument(
            "--audio",
            action="store_true",
            help="with a sound track that encodes time: a 440 Hz tone and a click every 100 ms",
        )

    def handle(self, *args, path, seconds, fps, size, vfr, audio, **options):
        if not 0 < seconds <= 3600 or not 1 <= fps <= 240:
            raise CommandError("--seconds must be in (0, 3600] and --fps in [1, 240]")
        video = synth_video(path, seconds=seconds, fps=fps, size=_size(size), vfr=vfr, audio=audio)
        self.stdout.write(
            f"wrote {video.path}: {len(video.frame_times_us)} frames, {video.width}x"
            f"{video.height}, {fps} fps{' (variable)' if vfr else ''}, SHA-256 "
            f"{file_sha256(video.path)}"
        )
