"""The QA-audit part of the demo: the two stand-in models (not models) answer the demo's QA set
under each media choice (text only, picture only and, when the demo video has sound, sound only
and picture and sound), the stand-in judge judges them, and the shortcut and modality audit reads
them (``DEMO_AUDIT``).

The stand-in is scripted (``demo_rules``) so that both models answer the Edge group right from
its text alone (a language shortcut) and the Chain group right from the picture alone (redundant
when the group is labelled picture and sound). The rules are written to
``var/stand-in-rules.json``, which ``make run`` hands to the stand-in it starts
(``serve_stand_in_provider --rules``), so runs started later from the Runs page get the same
answers. The seed itself asks the stand-in already listening on ``STAND_IN_PROVIDER_PORT`` (its
rules replaced by these), or one it starts in this process for the seed's duration.
"""

from __future__ import annotations

import contextlib
import json
import threading

from django.conf import settings

from studio.demo import DemoContext, demo_seeder

DEMO_AUDIT = "demo-qa-audit"
RULES_FILE = "stand-in-rules.json"
MODALITIES = {"text_only": [], "visual_only": ["picture"], "audio_only": ["sound"],
              "full": ["picture", "sound"]}  # fmt: skip


def rules_path():
    return settings.VAR_DIR / RULES_FILE


def demo_rules(records: list[dict], models: list[str]) -> list[dict]:
    """Right answers (the references) for the Edge group with text only and for every turn of
    the Chain group with the picture only, from each of ``models``. A turn's request holds the
    earlier questions too, so later turns' rules come first (the first rule that matches
    answers)."""
    scripted = []
    for record in records:
        if record["structure"] == "edge":
            scripted.append((record, "text_only"))
        elif record["structure"] == "chain":
            scripted.append((record, "visual_only"))
    rules = []
    for record, condition in scripted:
        for turn in reversed(record["turns"]):
            for model in models:
                rules.append(
                    {
                        "model": model,
                        "contains": turn["question"],
                        "modalities": MODALITIES[condition],
                        "times": -1,
                        "action": {"content": json.dumps({"answer": turn["answer"]})},
                    }
                )
    return rules


@contextlib.contextmanager
def scripted_stand_in(rules: list[dict]):
    """The stand-in on ``STAND_IN_PROVIDER_PORT`` with ``rules``: the one listening there, or one
    started here until the block ends. Yields False when neither can be had."""
    import httpx2

    from scoring.providers.stand_in import make_server

    url = f"http://127.0.0.1:{settings.STAND_IN_PROVIDER_PORT}"
    try:
        httpx2.post(f"{url}/_stand_in/rules", json={"rules": rules}, timeout=5).raise_for_status()
    except httpx2.HTTPError:
        pass
    else:
        yield True
        return
    try:
        server = make_server("127.0.0.1", settings.STAND_IN_PROVIDER_PORT)
    except OSError:
        yield False
        return
    server.state.script(rules)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.daemon = True
    thread.start()
    try:
        yield True
    finally:
        server.shutdown()
        server.server_close()


def _drive(run) -> None:
    """Render a run's media and drive it here, inside the seed's transaction (``run_drive``
    leaves a caller's connection open)."""
    from media.renders import media_render
    from scoring.runs import run_drive

    for media_id in set(run.items.exclude(media=None).values_list("media_id", flat=True)):
        media_render(media_id=media_id)
    run_drive(run_id=run.pk)
    run.refresh_from_db()


def _run_and_audit(rules, conditions, manifest, endpoints, judge, admin):
    """The QA runs of ``endpoints`` under ``conditions``, each judged, and the audit of them
    (None when no stand-in could be had)."""
    from scoring.judges import judge_start
    from scoring.packages import package_resolve
    from scoring.qa.audits import qa_audit_create, run_condition
    from scoring.qa.runs import qa_predict

    with scripted_stand_in(rules) as ready:
        if not ready:
            return None
        runs: dict[str, list] = {}
        for endpoint in endpoints:
            for condition in conditions:
                run = qa_predict(
                    name=f"demo-qa-{endpoint.name}-{condition.replace('_', '-')}",
                    manifest=manifest,
                    endpoint=endpoint,
                    package=package_resolve("qa-prediction"),
                    media=condition,
                    user=admin,
                )
                _drive(run)
                judged = judge_start(
                    name=f"{run.name}-judge",
                    kind="qa",
                    endpoint=judge,
                    package=package_resolve("qa-judge"),
                    runs=[run],
                    user=admin,
                )
                _drive(judged)
                runs.setdefault(run_condition(run), []).append(run)
    return qa_audit_create(name=DEMO_AUDIT, runs=runs, user=admin)


@demo_seeder(order=85)
def seed_qa_audit_demo(ctx: DemoContext) -> None:
    from review.models import Manifest
    from review.qa.demo import DEMO_MANIFEST
    from review.qa.imports import qa_export_bytes
    from review.qa.sampling import qa_manifest_uids
    from scoring.demo import demo_endpoints
    from scoring.runs import RunError
    from studio.roles import ADMIN

    manifest = Manifest.objects.filter(name=DEMO_MANIFEST).first()
    if manifest is None:
        return
    admin = ctx.users[ADMIN]
    predictor, second, judge = demo_endpoints()
    group_set = manifest.qa_source.group_set
    records = [
        json.loads(line)
        for line in qa_export_bytes(group_set=group_set, uids=qa_manifest_uids(manifest))
        .decode("utf-8")
        .splitlines()
    ]
    rules = demo_rules(records, [predictor.model, second.model])
    path = rules_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"rules": rules}, indent=2) + "\n", encoding="utf-8")
    with_sound = bool(group_set.groups.filter(video__has_audio=True).exists())
    conditions = ["text_only", "visual_only"] + (["audio_only", "full"] if with_sound else [])
    try:
        audit = _run_and_audit(rules, conditions, manifest, (predictor, second), judge, admin)
    except RunError as exc:
        # The demo goes on without it (say, another process's stand-in went away mid-seed).
        ctx.notes.append(f"QA audit: skipped ({exc}).")
        return
    if audit is None:
        ctx.notes.append(
            "QA audit: skipped (no stand-in provider could listen on "
            f"{settings.STAND_IN_PROVIDER_PORT})."
        )
        return
    counts = audit.result["counts"]
    ctx.notes.append(
        f"QA audit {DEMO_AUDIT}: the stand-ins (not models) answered the demo QA set under "
        f"{len(conditions)} media choices; {counts['any']} group(s) flagged (language shortcut "
        f"{counts['language_shortcut']}, redundant modality {counts['redundant_modality']}); "
        "page under Runs, shortcut and modality audits. The stand-in's scripted answers are in "
        f"var/{RULES_FILE}."
    )
