"""manage.py freeze_release NAME: snapshot every active step as a frozen release."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.models import Release
from annotation.releases import release_correct, release_freeze


class Command(BaseCommand):
    help = "Freeze every active step of the ready source videos as a release (or a correction)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--note", default="")
        parser.add_argument("--parent", help="Name of the release this one corrects")
        parser.add_argument("--allow-incomplete", action="store_true")
        parser.add_argument("--user", help="Username recorded as the one who froze it")

    def handle(self, *args, name, note, parent, allow_incomplete, user, **options):
        author = None
        if user:
            author = get_user_model().objects.filter(username=user).first()
            if author is None:
                raise CommandError(f"No user named {user}.")
        try:
            if parent:
                base = Release.objects.filter(name=parent).first()
                if base is None:
                    raise CommandError(f"No release named {parent}.")
                release = release_correct(parent=base, name=name, author=author, note=note)
            else:
                release = release_freeze(
                    name=name, author=author, note=note, allow_incomplete=allow_incomplete
                )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(
            f"Frozen release {release.name}: {release.sample_count} steps\n"
            f"sample list SHA-256  {release.sample_list_sha256}\n"
            f"manifest SHA-256     {release.manifest_sha256}"
        )
