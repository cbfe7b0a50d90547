"""manage.py render_media: render steps x conditions x profiles in the background, with progress.

Jobs are plain times (media knows nothing of steps or labels), one JSON object per job, in a file
(a JSON list) or ``-`` for stdin::

    {"subject": "step 7f3c…", "video": 12, "step": [start, cutoff, outcome, end],
     "previous": [start, cutoff, outcome, end] | null, "next": [...] | null, "seed": 0}

Times are integer microseconds. Without ``--inline`` the renders run on Celery's ``media`` queue
(start a worker) and this command shows their progress; ``--inline`` renders here, one by one.
``--rerun BATCH`` queues again whatever a batch has not finished (for example after a worker died).
"""

from __future__ import annotations

import json
import sys
import time

from django.core.management.base import BaseCommand, CommandError

from media.batches import RenderJob, batch_create, batch_progress, batch_rerun, jobs_from_json
from media.models import RenderBatch, RenderedMedia
from media.renders import PROFILES, media_render_group
from media.windows import Condition


def _load_jobs(source: str) -> list[RenderJob]:
    try:
        if source == "-":
            raw = json.load(sys.stdin)
        else:
            with open(source, encoding="utf-8") as handle:
                raw = json.load(handle)
        return jobs_from_json(raw)
    except (OSError, json.JSONDecodeError, ValueError) as exc:
        raise CommandError(f"cannot read jobs from {source}: {exc}") from None


class Command(BaseCommand):
    help = "Render media for steps x conditions x profiles and show progress."

    def add_arguments(self, parser):
        parser.add_argument("--jobs", help="JSON list of jobs (see the module doc), or - for stdin")
        parser.add_argument(
            "--conditions",
            default="official",
            help=f"comma-separated, of: {', '.join(c.value for c in Condition)}",
        )
        parser.add_argument(
            "--profiles", default="clip", help=f"comma-separated, of: {', '.join(PROFILES)}"
        )
        parser.add_argument("--label", default="")
        parser.add_argument(
            "--inline",
            action="store_true",
            help="render in this process instead of on the worker queue",
        )
        parser.add_argument(
            "--rerun",
            type=int,
            metavar="BATCH",
            help="queue again what batch BATCH has not finished",
        )
        parser.add_argument("--no-wait", action="store_true", help="queue and return at once")
        parser.add_argument(
            "--timeout",
            type=float,
            default=0,
            help="stop waiting after this many seconds (0: wait until done)",
        )

    def handle(self, *args, **opts):
        if opts["rerun"]:
            batch = RenderBatch.objects.filter(pk=opts["rerun"]).first()
            if batch is None:
                raise CommandError(f"no render batch {opts['rerun']}")
            queued = batch_rerun(batch=batch)
            self.stdout.write(f"batch {batch.pk}: {queued} unfinished renders queued again")
        else:
            if not opts["jobs"]:
                raise CommandError("give --jobs FILE (or --rerun BATCH)")
            conditions = [c.strip() for c in opts["conditions"].split(",") if c.strip()]
            profiles = [p.strip() for p in opts["profiles"].split(",") if p.strip()]
            unknown = [c for c in conditions if c not in set(Condition)]
            if unknown:
                raise CommandError(f"unknown condition(s): {', '.join(unknown)}")
            unknown = [p for p in profiles if p not in PROFILES]
            if unknown:
                raise CommandError(f"unknown profile(s): {', '.join(unknown)}")
            jobs = _load_jobs(opts["jobs"])
            label = opts["label"] or f"render_media ({len(jobs)} jobs)"
            batch = batch_create(jobs=jobs, conditions=conditions, profiles=profiles, label=label)
            self.stdout.write(f"batch {batch.pk}: {batch.items.count()} items")
        if opts["inline"]:
            # Media of one subject and condition share their frames: one decode renders them.
            groups: dict[tuple[str, str], list[int]] = {}
            pending = (
                batch.items.exclude(media=None)
                .exclude(media__status=RenderedMedia.Status.READY)
                .values_list("subject", "condition", "media_id")
            )
            for subject, condition, media_id in pending:
                groups.setdefault((subject, condition), []).append(media_id)
            for media_ids in groups.values():
                media_render_group(media_ids=media_ids)
                self._bar(batch_progress(batch))
        elif not opts["no_wait"]:
            deadline = time.monotonic() + opts["timeout"] if opts["timeout"] else None
            while True:
                progress = batch_progress(batch)
                self._bar(progress)
                if progress["finished"]:
                    break
                if deadline and time.monotonic() > deadline:
                    self.stdout.write("")
                    raise CommandError(f"batch {batch.pk} not finished after {opts['timeout']} s")
                time.sleep(0.5)
        progress = batch_progress(batch)
        self._bar(progress)
        self.stdout.write("")
        for failure in progress["failures"]:
            self.stderr.write(f"FAILED {failure['subject']} / {failure['condition']} / "
                              f"{failure['profile']}: {failure['reason']}")  # fmt: skip
        self.stdout.write(
            f"batch {batch.pk}: {progress['ready']} ready, {progress['failed']} failed, "
            f"{progress['total'] - progress['done']} unfinished of {progress['total']}"
        )
        if progress["failed"]:
            raise CommandError(f"{progress['failed']} renders failed")

    def _bar(self, progress: dict, width: int = 30) -> None:
        total = progress["total"] or 1
        filled = int(width * progress["done"] / total)
        self.stdout.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {progress['done']}/{progress['total']} "
            f"({progress['ready']} ready, {progress['failed']} failed)",
            ending="",
        )
        self.stdout.flush()
