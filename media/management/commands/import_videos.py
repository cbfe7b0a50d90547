"""manage.py import_videos PATH... --scene SLUG: import source videos from local files."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from media.ffmpeg import FFmpegError
from media.models import Scene
from media.probe import MediaRejected
from media.services import DuplicateVideo, video_import


class Command(BaseCommand):
    help = "Probe and import source videos into one scene; one line per file, then a summary."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", help="video files to import")
        parser.add_argument("--scene", required=True, help="scene slug, e.g. indoor/kitchen")

    def handle(self, *args, paths, scene, **options):
        try:
            scene_obj = Scene.objects.get(slug=scene)
        except Scene.DoesNotExist:
            known = ", ".join(Scene.objects.values_list("slug", flat=True)[:20]) or "none yet"
            raise CommandError(f"unknown scene {scene!r} (known scenes: {known})") from None

        imported, failed = 0, 0
        for path in paths:
            try:
                video = video_import(path=path, scene=scene_obj)
            except (MediaRejected, DuplicateVideo, FFmpegError, OSError) as exc:
                failed += 1
                self.stderr.write(f"FAILED {path}: {exc}")
                continue
            imported += 1
            self.stdout.write(
                f"imported {path}: video {video.pk}, {video.width}x{video.height}, "
                f"{video.frame_count} frames, {video.duration_us / 1e6:.2f} s"
                f"{', VFR' if video.is_vfr else ''}"
                f"{f', rotated {video.rotation}°' if video.rotation else ''}"
            )
        self.stdout.write(f"{imported} imported, {failed} failed")
        if failed:
            raise CommandError(f"{failed} of {len(paths)} files could not be imported")
