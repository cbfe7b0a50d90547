from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from scoring.endpoints import endpoint_create
from scoring.models import Endpoint, MediaInterface


class Command(BaseCommand):
    help = (
        "Register an OpenAI-compatible endpoint. The API key stays in the worker's environment: "
        "give the name of its variable with --api-key-env."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--base-url", required=True, help="up to /v1")
        parser.add_argument("--model", required=True)
        parser.add_argument("--api-key-env", default="", help="e.g. OPENAI_API_KEY (not the key)")
        parser.add_argument("--media", choices=MediaInterface.values, default="frames")
        parser.add_argument("--frames", type=int, default=16)
        parser.add_argument("--max-concurrency", type=int, default=4)
        parser.add_argument("--rpm", type=int, default=None)
        parser.add_argument("--tpm", type=int, default=None)
        parser.add_argument("--max-attempts", type=int, default=None)
        parser.add_argument("--timeout", type=int, default=120, help="seconds per request")
        parser.add_argument("--json-schema", action="store_true", help="accepts response_format")
        parser.add_argument("--open-weights", action="store_true")

    def handle(self, *args, **o):
        if Endpoint.objects.filter(name=o["name"]).exists():
            raise CommandError(f"endpoint {o['name']} exists; change it in the admin")
        try:
            endpoint = endpoint_create(
                name=o["name"],
                base_url=o["base_url"],
                model=o["model"],
                api_key_env=o["api_key_env"],
                media=o["media"],
                frames=o["frames"],
                max_concurrency=o["max_concurrency"],
                rpm=o["rpm"],
                tpm=o["tpm"],
                max_attempts=o["max_attempts"],
                timeout_seconds=o["timeout"],
                json_schema=o["json_schema"],
                open_weights=o["open_weights"],
            )
        except ValidationError as exc:
            problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
            raise CommandError(problems) from None
        self.stdout.write(f"endpoint {endpoint.name}: {endpoint.model} at {endpoint.base_url}")
