import json
import signal
import threading

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from scoring.providers.stand_in import make_server

LOOPBACK = ("127.0.0.1", "::1", "localhost")


class Command(BaseCommand):
    help = (
        "Serve the stand-in provider: an OpenAI-compatible HTTP server on loopback for tests and "
        "demos. It is not a model: its answers are word-overlap and hash functions of the request."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument(
            "--port", type=int, default=None, help="default STAND_IN_PROVIDER_PORT; 0 = any free"
        )
        parser.add_argument("--latency-ms", type=int, default=0, help="delay of every answer")
        parser.add_argument(
            "--rules",
            help='a JSON file {"rules": [...]}: scripted answers from the start, as POST '
            "/_stand_in/rules sets them (the demo writes var/stand-in-rules.json)",
        )
        parser.add_argument(
            "--in-use",
            action="store_true",
            help="serve nothing: say which endpoints point at the stand-in's address and exit "
            "0 when any does, 3 when none (what make run asks before starting it)",
        )

    def handle(self, *args, **o):
        if o["in_use"]:
            from scoring.demo import stand_in_users

            users = stand_in_users()
            if not users:
                raise CommandError("no endpoint points at the stand-in provider", returncode=3)
            self.stdout.write(f"endpoints on the stand-in provider: {', '.join(users)}")
            return
        if o["host"] not in LOOPBACK:
            raise CommandError("the stand-in provider serves on loopback only (127.0.0.1, ::1)")
        port = settings.STAND_IN_PROVIDER_PORT if o["port"] is None else o["port"]
        try:
            server = make_server(o["host"], port, latency_ms=o["latency_ms"])
        except OSError as exc:
            raise CommandError(f"cannot listen on {o['host']}:{port}: {exc.strerror}") from None
        if o["rules"]:
            try:
                with open(o["rules"], encoding="utf-8") as f:
                    rules = json.load(f)["rules"]
                server.state.script(rules)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                server.server_close()
                raise CommandError(f"cannot read the rules in {o['rules']}: {exc}") from None
            self.stdout.write(f"{len(rules)} scripted rule(s) from {o['rules']}")
        host, bound = server.server_address[:2]
        self.stdout.write(f"stand-in provider (not a model) on http://{host}:{bound}/v1")
        self.stdout.flush()

        def stop(_signum, _frame):
            threading.Thread(target=server.shutdown, daemon=True).start()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            server.serve_forever(poll_interval=0.2)
        finally:
            server.server_close()
