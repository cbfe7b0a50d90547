import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
application = get_asgi_application()

from studio.startup import refuse_uncollected_static  # noqa: E402 (needs the settings)

refuse_uncollected_static()
