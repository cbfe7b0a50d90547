import json

from django.core.management.base import BaseCommand, CommandError

from annotation.models import MicroStep, ReleaseStep
from annotation.rendering import job_as_json, render_jobs


class Command(BaseCommand):
    help = (
        "Print the render jobs of micro-steps as JSON, for `render_media --jobs -`, e.g. "
        "`manage.py step_render_jobs --release demo_v1 | manage.py render_media --jobs - "
        "--conditions official,ordered --profiles clip,frames16`."
    )

    def add_arguments(self, parser):
        scope = parser.add_mutually_exclusive_group(required=True)
        scope.add_argument("--video", type=int, action="append", help="video id (repeatable)")
        scope.add_argument("--release", help="every step of this release still in this instance")
        scope.add_argument("--all", dest="every", action="store_true", help="every active step")
        parser.add_argument("--seed", type=int, default=0, help="seed of shuffled frame orders")

    def handle(self, *args, video, release, every, seed, **options):
        steps = MicroStep.objects.filter(status=MicroStep.Status.ACTIVE)
        if video:
            steps = steps.filter(video_id__in=video)
        elif release:
            copies = ReleaseStep.objects.filter(release__name=release)
            if not copies.exists():
                raise CommandError(f"no release named {release!r} (or it has no steps)")
            steps = steps.filter(pk__in=copies.exclude(step=None).values("step_id"))
        jobs = render_jobs(steps, seed=seed)
        if not jobs:
            raise CommandError("no active step matches")
        self.stdout.write(json.dumps([job_as_json(job) for job in jobs], indent=1))
        self.stderr.write(f"{len(jobs)} job(s)")
