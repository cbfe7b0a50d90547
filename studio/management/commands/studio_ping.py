import secrets

from django.core.management.base import BaseCommand, CommandError

from studio.tasks import ping


class Command(BaseCommand):
    help = "Send one task through the broker to a worker and wait for its result."

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=60.0)

    def handle(self, *args, timeout: float, **options):
        token = secrets.token_hex(8)
        result = ping.delay(token)
        try:
            answer = result.get(timeout=timeout)
        except Exception as exc:
            raise CommandError(f"no worker answered within {timeout:g} s: {exc}") from exc
        if answer != f"pong:{token}":
            raise CommandError(f"unexpected answer {answer!r}")
        self.stdout.write(self.style.SUCCESS(f"worker answered task {result.id}"))
