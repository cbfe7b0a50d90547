from django.conf import settings
from django.core.management.base import BaseCommand

from annotation.demo import demo_is_possible, seed_demo


class Command(BaseCommand):
    help = "Seed the demo data set (videos, steps, one user per role) into an empty database."

    def handle(self, *args, **options):
        if not demo_is_possible():
            self.stdout.write("Database already has users or videos; demo not seeded.")
            return
        given = settings.STUDIO_DEMO_PASSWORD
        password, usernames, notes = seed_demo(password=given)
        self.stdout.write(self.style.SUCCESS("Demo seeded. Log in as any of:"))
        for name in usernames:
            self.stdout.write(f"  {name}")
        if given:
            self.stdout.write("with the password from STUDIO_DEMO_PASSWORD.")
        else:
            # Printed once: it is stored only as a hash.
            self.stdout.write(f"with the password: {password}")
        for note in notes:
            self.stdout.write(note)
