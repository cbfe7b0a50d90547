"""The scoring part of the demo: endpoints on the stand-in provider (``make run`` starts it
whenever endpoints point at it), so an admin can run predictions and both judges on the demo
release with no configuration, and one prediction run that starts right away."""

from __future__ import annotations

from django.conf import settings

from studio.demo import DemoContext, demo_seeder

DEMO_RUN = "demo-official-stand-in"
DEMO_STUDY = "demo-evidence-stand-in"


def stand_in_base_url() -> str:
    return f"http://127.0.0.1:{settings.STAND_IN_PROVIDER_PORT}/v1"


def stand_in_users() -> list[str]:
    """The endpoints whose address is the stand-in's (loopback, ``STAND_IN_PROVIDER_PORT``),
    as the demo's are: ``make run`` starts the stand-in when there is any, whatever the broker."""
    from urllib.parse import urlsplit

    from scoring.models import Endpoint

    names = []
    for name, url in Endpoint.objects.order_by("name").values_list("name", "base_url"):
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            continue
        if parts.hostname in ("127.0.0.1", "localhost", "::1") and (
            port == settings.STAND_IN_PROVIDER_PORT
        ):
            names.append(name)
    return names


def demo_endpoints() -> list:
    """The two stand-in endpoints (created if missing; idempotent)."""
    from scoring.endpoints import endpoint_create
    from scoring.models import Endpoint

    wanted = [
        (
            "stand-in-vlm",
            "stand-in-vision",
            "frames",
            "Stand-in provider (not a model): "
            "predictions from 16 images, picked by a hash of the request.",
        ),
        (
            "stand-in-vlm-b",
            "stand-in-vision-b",
            "frames",
            "Stand-in provider (not a model): a second stand-in for the demo study.",
        ),
        (
            "stand-in-judge",
            "stand-in-judge",
            "frames",
            "Stand-in provider (not a model): judge scores by word overlap with the reference.",
        ),
    ]
    endpoints = []
    for name, model, media, note in wanted:
        found = Endpoint.objects.filter(name=name).first()
        endpoints.append(
            found
            or endpoint_create(
                name=name,
                base_url=stand_in_base_url(),
                model=model,
                media=media,
                json_schema=True,
                max_concurrency=4,
                timeout_seconds=60,
                note=note,
            )
        )
    return endpoints


@demo_seeder(order=60)
def seed_scoring_demo(ctx: DemoContext) -> None:
    from annotation.releases import release_freeze
    from scoring.packages import package_resolve, packages_sync_builtin
    from scoring.runs import run_predict
    from studio.roles import ADMIN

    packages_sync_builtin()
    predictor, _second, _judge = demo_endpoints()
    if ctx.release is None:
        # Its own name: `freeze_release demo_v1` stays for the reader to try (README).
        ctx.release = release_freeze(name="demo_models_v1", author=ctx.users[ADMIN])
    run_predict(
        name=DEMO_RUN,
        endpoint=predictor,
        package=package_resolve("official-prediction"),
        condition="official",
        release=ctx.release,
        user=ctx.users[ADMIN],
    )
    ctx.notes.append(
        f"Model runs: endpoints stand-in-vlm and stand-in-judge point at the stand-in provider "
        f"(not a model) on {stand_in_base_url()}; run {DEMO_RUN} predicts the demo release. "
        "Judge it from its page (Runs) or with manage.py judge."
    )


@demo_seeder(order=70)
def seed_study_demo(ctx: DemoContext) -> None:
    """A small evidence study (two stand-ins x six conditions) that starts right away: the
    workers render, predict and judge; its report and charts fill in as they do."""
    from scoring.packages import package_resolve
    from scoring.studies import study_create, study_start
    from studio.roles import ADMIN

    predictor, second, judge = demo_endpoints()
    study = study_create(
        name=DEMO_STUDY,
        template="evidence",
        release=ctx.release,
        endpoints=[predictor, second],
        package=package_resolve("frames-prediction"),
        judge_endpoint=judge,
        judge_package=package_resolve("reference-judge"),
        bootstrap_seed=20260721,
        user=ctx.users[ADMIN],
    )
    study_start(study=study, user=ctx.users[ADMIN])
    ctx.notes.append(
        f"Study {DEMO_STUDY}: the stand-ins (not models) under the six evidence conditions; "
        "its report and charts are under Studies once the workers are through."
    )
