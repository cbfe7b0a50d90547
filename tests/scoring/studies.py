"""Shared by the study tests: a six-step release over three videos in two scenes, two stand-in
models, and helpers that create a study and finish it in this process."""

import pytest

from scoring.models import StudyRun
from scoring.runs import run_drive
from scoring.studies import study_advance, study_create, study_progress

S = 1_000_000
CONTRAST = [{"name": "scene prior", "a": "scene_only", "b": "prompt_only"}]


@pytest.fixture
def study_release(db, scene, make_video, annotator, admin_user):
    """Six labelled steps over three videos in two scenes, frozen as release ``sr``; each
    video's first step is tagged ``action_type:grasp``, its second ``action_type:place`` and
    ``occluded``."""
    from annotation.releases import release_freeze
    from annotation.services import step_create
    from media.models import Scene

    garden = Scene.objects.create(slug="outdoor/garden", name="Garden", setting="outdoor")
    words = ["kettle", "mug", "spoon", "hose", "rake", "seed"]
    for v, where in enumerate([scene, scene, garden]):
        video = make_video(scene=where, title=f"video-{v}.mp4")
        for i in range(2):
            w = words[v * 2 + i]
            step_create(
                video=video,
                author=annotator,
                start_us=i * 3 * S,
                cutoff_us=i * 3 * S + (i + 1) * S // 2,
                outcome_us=i * 3 * S + (i + 1) * S // 2,
                end_us=i * 3 * S + (i + 1) * S,
                local_intent=f"Pick up the {w}",
                procedural_intent=f"The {w} is needed next",
                next_step=f"Put the {w} down",
                tags=["action_type:grasp"] if i == 0 else ["action_type:place", "occluded"],
            )
    return release_freeze(name="sr", author=admin_user)


@pytest.fixture
def models(make_endpoint):
    return [make_endpoint("model-a"), make_endpoint("model-b", model="stand-in-vision-b")]


def create_study(release, models, make_endpoint, packages, name="st", **kw):
    kw.setdefault("template", "custom")
    kw.setdefault("conditions", ["scene_only", "prompt_only"])
    kw.setdefault("contrasts", CONTRAST)
    judge = kw.pop("judge", None) or make_endpoint("judge", model="stand-in-judge")
    return study_create(
        name=name,
        release=release,
        endpoints=models,
        package=packages("frames-prediction"),
        judge_endpoint=judge,
        judge_package=packages("reference-judge"),
        **kw,
    )


def finish_study(study):
    """Advance the study and drive its runs in this process until it is complete."""
    for _ in range(4):
        study_advance(study=study)
        for sr in StudyRun.objects.filter(study=study):
            if sr.run.status == "running":
                run_drive(run_id=sr.run_id)
        if study_progress(study)["stage"] == "complete":
            return
    raise AssertionError(study_progress(study))
