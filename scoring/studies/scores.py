"""A study's stored predictions and judgements as a :class:`scoring.stats.ScoreTable`.

Each (model, condition, step) cell gets its status from the prediction's outcome and its
judgement (docs/reports.md, "Failure rules"): ok + judged ok -> OK with the three scores;
parse failure -> INVALID (0); refusal -> EXECUTION; api_error -> API_ERROR; ok but the judgement
failed -> NO_JUDGEMENT; not run or not judged yet -> PENDING; a step the run left out because
its condition has no window -> NO_WINDOW.

The boundary study filters windows by the human boundary audit of its manifest when one exists
(``window_filter``): only the four-way valid steps (all of Early, Official, Outcome visible and
Next visible ruled valid; ``review.boundary``) stay in every condition; the others are removed
with the reason ``invalid_window``."""

from __future__ import annotations

import numpy as np

from annotation.tags import tag_strata
from review.manifests.sampling import DEFAULT_BIN_EDGES_US, bin_labels, bin_of
from scoring.models import ItemState, Judgement, Outcome, RunItem, Study
from scoring.models.studies import StudyTemplate
from scoring.runs.services import target_steps
from scoring.stats import Cell, ScoreTable
from scoring.stats.scoretable import INVALID_WINDOW, REASON_NAMES
from scoring.studies.templates import DIMENSIONS
from studio.vocabulary import vocabulary

# Why a report removed a step from a condition (scoring.stats names the reasons).
vocabulary(
    "exclusion_reason",
    {
        REASON_NAMES[Cell.EXECUTION]: "Execution failure (refusal)",
        REASON_NAMES[Cell.API_ERROR]: "API error",
        REASON_NAMES[Cell.NO_JUDGEMENT]: "No judgement",
        REASON_NAMES[Cell.PENDING]: "Not judged yet",
        REASON_NAMES[Cell.NO_WINDOW]: "No window under this condition",
        INVALID_WINDOW: "Window ruled invalid by the boundary audit",
    },
    title="Reason",
)

PREDICTION_STATUS = {
    Outcome.PARSE_FAILURE: Cell.INVALID,
    Outcome.REFUSAL: Cell.EXECUTION,
    Outcome.API_ERROR: Cell.API_ERROR,
}


def duration_bin(step, edges=DEFAULT_BIN_EDGES_US) -> str:
    """The step's duration bin (step duration ``end - start``; bins of the sample designs)."""
    return bin_labels(edges)[bin_of(step.end_us - step.start_us, edges)]


def window_filter(study: Study) -> dict | None:
    """The four-way valid set of the boundary audit of the study's manifest (the most recent
    boundary campaign over it), for a boundary study; None otherwise (no filter)."""
    if study.template != StudyTemplate.BOUNDARY or study.manifest is None:
        return None
    from review.boundary.reporting import boundary_campaign_for, four_way_valid_set

    campaign = boundary_campaign_for(study.manifest)
    return four_way_valid_set(campaign) if campaign is not None else None


def study_table(study: Study, *, filter_set: dict | None = None) -> ScoreTable:
    """The study's table; ``filter_set`` (from ``window_filter``) removes every step outside
    its ``valid`` list from every condition."""
    steps = target_steps(release=study.release, manifest=study.manifest)
    index = {str(s.sample_id): i for i, s in enumerate(steps)}
    endpoints = study.models_in_order()
    m, c, n, d = len(endpoints), len(study.conditions), len(steps), len(DIMENSIONS)
    scores = np.full((m, c, n, d), np.nan)
    status = np.full((m, c, n), int(Cell.PENDING), dtype=np.int8)
    links = {
        (sr.condition, sr.endpoint_id): sr.run for sr in study.study_runs.select_related("run")
    }
    for ci, condition in enumerate(study.conditions):
        judge = links.get((condition, None))
        judged = {}
        if judge is not None:
            for row in Judgement.objects.filter(run=judge).values(
                "prediction_id", "outcome", *DIMENSIONS
            ):
                judged[row["prediction_id"]] = row
        for mi, endpoint in enumerate(endpoints):
            run = links.get((condition, endpoint.pk))
            if run is None:
                continue
            for skipped in run.provenance.get("skipped", []):
                if skipped["sample"] in index:
                    status[mi, ci, index[skipped["sample"]]] = Cell.NO_WINDOW
            for pk, key, state, outcome in RunItem.objects.filter(run=run).values_list(
                "pk", "key", "state", "outcome"
            ):
                i = index.get(key)
                if i is None or state != ItemState.DONE:
                    continue
                if outcome != Outcome.OK:
                    status[mi, ci, i] = PREDICTION_STATUS[outcome]
                    continue
                row = judged.get(pk)
                if row is None or not row["outcome"]:
                    continue  # not judged yet: pending
                if row["outcome"] != Outcome.OK:
                    status[mi, ci, i] = Cell.NO_JUDGEMENT
                    continue
                status[mi, ci, i] = Cell.OK
                scores[mi, ci, i] = [row[x] for x in DIMENSIONS]
    window_valid = None
    if filter_set is not None:
        keep = set(filter_set["valid"])
        row = np.array([str(s.sample_id) in keep for s in steps], dtype=bool)
        window_valid = np.tile(row, (c, 1))
    return ScoreTable(
        window_valid=window_valid,
        models=tuple(e.name for e in endpoints),
        conditions=tuple(study.conditions),
        dimensions=DIMENSIONS,
        items=np.array([str(s.sample_id) for s in steps], dtype=object),
        videos=np.array([s.video_sha256 for s in steps], dtype=object),
        scenes=np.array([s.scene_slug for s in steps], dtype=object),
        scores=scores,
        status=status,
        strata={
            "duration_bin": np.array([duration_bin(s) for s in steps], dtype=object),
            **{
                name: np.array(levels, dtype=object)
                for name, levels in tag_strata([list(s.tags) for s in steps]).items()
            },
        },
    )
