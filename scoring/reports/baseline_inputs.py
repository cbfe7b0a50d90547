"""The human-baseline report's inputs, read from the database, and the report document itself
(``baseline_report``): the campaign's current responses (review), the judge's scores of them,
and the matched model scores on the identical steps (existing prediction runs, matched by step
uid, scored by the reference judge). The computation is ``baseline.compute`` (pure)."""

from __future__ import annotations

import hashlib
import uuid

from review.manifests.sampling import DEFAULT_BIN_EDGES_US, bin_labels
from scoring.models import Judgement, Outcome, Run, RunItem, RunKind, RunStatus
from scoring.reports.baseline import DIMENSIONS, REPLICATES, Answer, Item, Response, compute
from scoring.runs.services import set_snapshot


class BaselineError(ValueError):
    pass


def baseline_campaign(name: str):
    from review.baseline.kind import KIND
    from review.campaigns.models import Campaign

    campaign = Campaign.objects.select_related("manifest__release").filter(name=name).first()
    if campaign is None or campaign.kind != KIND:
        raise BaselineError(f"no human-baseline campaign named {name}")
    return campaign


def _bin_edges(manifest) -> list[int]:
    design = (manifest.manifest or {}).get("design") or {}
    return list(design.get("bin_edges_us") or DEFAULT_BIN_EDGES_US)


def read_items(campaign) -> list[Item]:
    """The campaign's steps with their source video (the bootstrap cluster), scene and the
    duration bin the frozen manifest gave them."""
    rows = campaign.items.values_list(
        "sample__sample_id",
        "sample__duration_bin",
        "sample__release_step__video_sha256",
        "sample__release_step__scene_slug",
    ).order_by("sample__sample_id")
    return [Item(str(sid), video, scene, int(b)) for sid, b, video, scene in rows]


def read_responses(campaign) -> tuple[list[Response], dict[int, str]]:
    from django.contrib.auth import get_user_model

    from review.baseline.kind import PART
    from review.campaigns.services import current_submissions

    rows = list(
        current_submissions(campaign=campaign)
        .filter(part=PART)
        .values_list("person_id", "item__sample__sample_id", "payload")
    )
    names = dict(
        get_user_model().objects.filter(pk__in={r[0] for r in rows}).values_list("pk", "username")
    )
    out = []
    for person_id, sample_id, payload in rows:
        rater = names[person_id]
        if payload.get("broken"):
            out.append(Response(rater, str(sample_id), True, {}, payload.get("seconds")))
            continue
        dims = {
            d: Answer(
                bool(payload["dimensions"][d]["answerable"]),
                tuple(payload["dimensions"][d]["answers"]),
                int(payload["dimensions"][d]["confidence"]),
            )
            for d in DIMENSIONS
        }
        out.append(Response(rater, str(sample_id), False, dims, payload.get("seconds")))
    return out, names


def human_judge_run(campaign, name: str | None = None) -> Run | None:
    """The reference judge run over the campaign's answers: ``name``, or the latest one."""
    runs = Run.objects.filter(kind=RunKind.REFERENCE, provenance__campaign=campaign.name)
    if name:
        run = runs.filter(name=name).first()
        if run is None:
            raise BaselineError(f"no reference judge run {name} over campaign {campaign.name}")
        return run
    return runs.order_by("-created_at", "-pk").first()


def _scores(row) -> dict:
    if row["outcome"] != Outcome.OK:
        return dict.fromkeys(DIMENSIONS, 0.0)  # a failed judgement scores 0 (appendix I.3)
    return {d: float(row[d]) for d in DIMENSIONS}


def read_human_scores(run: Run | None, names: dict[int, str]) -> tuple[dict | None, dict]:
    if run is None:
        return None, {"pending": 0}
    scores, pending = {}, 0
    for row in Judgement.objects.filter(run=run, subject_kind="human_answer").values(
        "subject_key", "outcome", *DIMENSIONS
    ):
        _, person_id, sample_id = row["subject_key"].rsplit(":", 2)
        if not row["outcome"]:
            pending += 1
            continue
        scores[(names.get(int(person_id), person_id), str(uuid.UUID(sample_id)))] = _scores(row)
    return scores, {"pending": pending}


def read_model_scores(uids: list[str], prefer_package_id: int | None) -> tuple[dict, list[dict]]:
    """Per prediction run on any of the steps (official condition, finished), its reference
    judge run (the same package as the human judge when there is one, else the latest), and
    per step m_ikd: the judge's scores, 0 for a failed prediction or judgement (appendix I.3)."""
    wanted = {uuid.UUID(u) for u in uids}
    prediction_runs = Run.objects.filter(
        kind=RunKind.PREDICTION, status=RunStatus.FINISHED, items__sample_id__in=wanted
    ).distinct()
    models, sources = {}, []
    for run in prediction_runs.order_by("name"):
        if run.condition not in ("", "official"):
            continue
        judges = Run.objects.filter(kind=RunKind.REFERENCE, sources=run).order_by(
            "-created_at", "-pk"
        )
        judge = judges.filter(package_id=prefer_package_id).first() or judges.first()
        if judge is None:
            sources.append({"run": run.name, "judge": None, "note": "no reference judge run"})
            continue
        items = {
            pk: (str(sid), outcome)
            for pk, sid, outcome in RunItem.objects.filter(
                run=run, sample_id__in=wanted
            ).values_list("pk", "sample_id", "outcome")
        }
        judged = {
            row["prediction_id"]: row
            for row in Judgement.objects.filter(run=judge, prediction_id__in=list(items)).values(
                "prediction_id", "outcome", *DIMENSIONS
            )
        }
        scores = {}
        for pk, (sid, outcome) in items.items():
            row = judged.get(pk)
            if outcome != Outcome.OK:  # a failed prediction scores 0 without a judge call
                scores[sid] = dict.fromkeys(DIMENSIONS, 0.0)
            elif row is None or not row["outcome"]:  # not judged (yet): not a score
                scores[sid] = None
            else:
                scores[sid] = _scores(row)  # a failed judgement scores 0
        pending = [s for s, v in scores.items() if v is None]
        models[run.name] = {s: v for s, v in scores.items() if v is not None}
        sources.append(
            {
                "run": run.name,
                "model": run.endpoint.model,
                "judge": judge.name,
                "judge_package_sha256": judge.package.sha256,
                "unjudged_steps": len(pending),
            }
        )
    return models, sources


def baseline_report(
    campaign, *, similarity, judge: str | None = None, seed: int | None = None,
    replicates: int = REPLICATES,
) -> dict:  # fmt: skip
    """The whole report document of ``campaign`` (docs/baseline.md, "The report")."""
    manifest = campaign.manifest
    items = read_items(campaign)
    responses, names = read_responses(campaign)
    run = human_judge_run(campaign, judge)
    human_scores, judge_state = read_human_scores(run, names)
    models, sources = read_model_scores([i.uid for i in items], run.package_id if run else None)
    seed = manifest.seed if seed is None else seed
    edges = _bin_edges(manifest)
    document = compute(
        items=items,
        responses=responses,
        human_scores=human_scores,
        models=models,
        similarity=stored(similarity),
        bin_labels=bin_labels(edges),
        seed=seed,
        replicates=replicates,
    )
    judge_info = None
    if run is not None:
        prov = run.provenance or {}
        judge_info = {
            "run": run.name,
            "status": run.status,
            "package": prov.get("package"),
            "endpoint": prov.get("endpoint"),
            "pending": judge_state["pending"],
            "not_judged": (run.options or {}).get("not_judged", {}),
        }
    return {
        "campaign": campaign.name,
        "state": campaign.state,
        "raters_per_item": campaign.per_item,
        "manifest": set_snapshot(manifest.release, manifest),
        "judge": judge_info,
        "model_runs": sources,
        **document,
    }


class EmbeddingStore:
    """The database side of ``MiniLM.embed``: vectors by (version, SHA-256 of the text)."""

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, version: str, texts: list[str]) -> dict:
        import numpy as np

        from scoring.models import TextEmbedding

        keys = {self._key(t): t for t in texts}
        rows = TextEmbedding.objects.filter(version=version, text_sha256__in=list(keys))
        return {
            keys[k]: np.frombuffer(bytes(v), dtype="<f4").astype(np.float64)
            for k, v in rows.values_list("text_sha256", "vector")
        }

    def put(self, version: str, vectors: dict) -> None:
        import numpy as np

        from scoring.models import TextEmbedding

        TextEmbedding.objects.bulk_create(
            [
                TextEmbedding(
                    version=version,
                    text_sha256=self._key(t),
                    vector=np.asarray(v, dtype="<f4").tobytes(),
                )
                for t, v in vectors.items()
            ],
            ignore_conflicts=True,
            batch_size=1000,
        )


def stored(function):
    """``function`` with the database attached as its embedding store (MiniLM only)."""
    if hasattr(function, "store"):
        function.store = EmbeddingStore()
    return function
