"""Two QA runs over twelve groups on four videos, every turn's answer and judgement scripted on
the stand-in, each run judged by a real QA judge run: the QA report's tests compute its numbers
by hand from ``GROUPS``.

A turn's script, for run A and run B: ``c5``/``c4`` an open-ended turn judged correct with that
score, ``i0``-``i3`` judged incorrect, ``r`` a review case (judged correct with score 1), ``u``
the judge call fails (unjudged), ``e`` the model call fails (an error; later turns are not
asked, ``-``), ``c``/``i`` a multiple-choice turn answered right or wrong."""

from __future__ import annotations

import json

from review.qa.imports import qa_import
from review.qa.sampling import qa_manifest_freeze
from scoring.judges import judge_start
from scoring.qa.runs import qa_predict
from scoring.runs import run_drive
from tests.review.qa.helpers import group, jsonl

# n, video, structure, category, modality, turns [(kind, A, B)]
GROUPS = [
    (1, 0, "node", "action_status", "visual", [("open", "c5", "c4")]),
    (2, 0, "node", "action_status", "visual", [("open", "i2", "c5")]),
    (3, 1, "node", "world_perception", "auditory", [("choice", "c", "i")]),
    (4, 1, "edge", "world_perception", "audio_visual", [("open", "c4", "i1")]),
    (5, 2, "edge", "action_status", "visual", [("open", "r", "c5")]),
    (6, 2, "edge", "goal_planning", "visual", [("open", "c5", "i0")]),
    (7, 3, "chain", "goal_planning", "auditory",
     [("open", "c5", "c5"), ("open", "i3", "c4"), ("choice", "c", "c")]),
    (8, 3, "chain", "action_status", "visual", [("open", "c4", "e"), ("choice", "i", "-")]),
    (9, 0, "loop", "world_perception", "visual", [("open", "e", "c5"), ("open", "-", "i2")]),
    (10, 1, "node", "action_status", "audio_visual", [("choice", "c", "c")]),
    (11, 2, "node", "world_perception", "visual", [("open", "u", "c4")]),
    (12, 3, "edge", "action_status", "visual", [("open", "c5", "i2")]),
    (13, 1, "loop", "goal_planning", "visual", [("open", "c4", "c4"), ("open", "c5", "i1")]),
]  # fmt: skip
RUNS = {"a": "qa-report-a", "b": "qa-report-b"}
MODELS = {"a": "stand-in-vision-a", "b": "stand-in-vision-b"}
JUDGE_MODEL = "stand-in-judge-report"


def token(n: int, t: int) -> str:
    return f"qg{n:02d}t{t}"


def _records(videos) -> list[dict]:
    records = []
    for n, v, structure, category, modality, turns in GROUPS:
        record = group(n, videos[v].sha256, structure=structure, turns=len(turns),
                       category=category, modality=modality)  # fmt: skip
        for t, (kind, _a, _b) in enumerate(turns, start=1):
            turn = record["turns"][t - 1]
            turn["question"] = f"Question {token(n, t)}?"
            turn["answer"] = f"reference {token(n, t)}"
            if kind == "choice":
                turn["options"] = [turn["answer"], f"other {token(n, t)}", f"third {token(n, t)}"]
        records.append(record)
    return sorted(records, key=lambda r: r["uid"])


def _rules(which: str, model: str) -> list[dict]:
    """The replies of run ``which``'s model (the latest turn first: a turn's request holds the
    earlier questions too) and the judge's verdicts on its answers."""
    judge, asked = [], []
    for n, *_rest, turns in GROUPS:
        for t, turn in reversed(list(enumerate(turns, start=1))):
            kind, script = turn[0], turn[1 if which == "a" else 2]
            answer = f"answer {which} {token(n, t)}"
            if script == "-":
                continue
            if script == "e":
                action = {"status": 400}
            elif kind == "choice":
                action = {"content": json.dumps({"answer": "A" if script == "c" else "B"})}
            else:
                action = {"content": json.dumps({"answer": answer})}
            asked.append({"model": model, "contains": f"Question {token(n, t)}?",
                          "times": -1, "action": action})  # fmt: skip
            if kind == "open" and script != "e":
                if script == "u":
                    verdict = {"status": 400, "message": "scripted judge failure"}
                else:
                    correct, score = script[0] in "cr", 1 if script == "r" else int(script[1])
                    verdict = {"content": {"correct": correct, "score": score,
                                           "justification": "scripted"}}  # fmt: skip
                judge.append({"model": JUDGE_MODEL, "contains": answer, "times": -1,
                              "action": verdict})  # fmt: skip
    return asked + judge


def build(*, make_video, admin_user, make_endpoint, packages, stand_in, models=None) -> dict:
    """The world; ``make_endpoint(name=..., model=...)`` makes an endpoint on the stand-in;
    ``models`` may name the two runs' models otherwise (``MODELS``)."""
    models = models or MODELS
    videos = [make_video(title=f"report-video-{i}.mp4") for i in range(4)]
    group_set, _ = qa_import(text=jsonl(_records(videos)), name="qa_report_set",
                             author=admin_user)  # fmt: skip
    manifest = qa_manifest_freeze(group_set=group_set, name="qa_report_manifest", seed=3,
                                  params={"n_groups": len(GROUPS)}, author=admin_user)  # fmt: skip
    stand_in.rules(*_rules("a", models["a"]), *_rules("b", models["b"]))
    judge_endpoint = make_endpoint(name="report-judge", model=JUDGE_MODEL)
    runs, judges = {}, {}
    for which in ("a", "b"):
        run = qa_predict(
            name=RUNS[which],
            manifest=manifest,
            endpoint=make_endpoint(name=f"report-{which}", model=models[which]),
            package=packages("qa-prediction"),
            media="text_only",
        )
        run_drive(run_id=run.pk)
        run.refresh_from_db()
        judge = judge_start(name=f"{RUNS[which]}-judge", kind="qa", endpoint=judge_endpoint,
                            package=packages("qa-judge"), runs=[run])  # fmt: skip
        run_drive(run_id=judge.pk)
        judge.refresh_from_db()
        runs[which], judges[which] = run, judge
    return {"videos": videos, "manifest": manifest, "runs": runs, "judges": judges}
