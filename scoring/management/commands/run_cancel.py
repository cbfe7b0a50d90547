from django.core.management.base import BaseCommand

from scoring.management.commands import _lookup
from scoring.runs import run_cancel


class Command(BaseCommand):
    help = "Cancel a run: no new call starts (resume it with the command that started it)."

    def add_arguments(self, parser):
        parser.add_argument("name")

    def handle(self, *args, **o):
        run = _lookup.run(o["name"])
        done = run_cancel(run=run)
        self.stdout.write(f"run {run.name} " + ("cancelled" if done else f"is {run.status}"))
