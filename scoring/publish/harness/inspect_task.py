"""inspect_ai task of a published Intent Studio benchmark (copied as ``inspect/intent_studio.py``).

    inspect eval inspect/intent_studio.py -T condition=official --model MODEL \\
        --model-role grader=JUDGE_MODEL

The dataset is the shipped rows (``data/test.jsonl``), the media are the shipped files as inspect
content parts (images, or the clip with ``-T interface=video``), the prompt is the prediction
package the studio uses (system message + user text + media). The scorer asks the model in the
``grader`` role with the reference-judge package and reports the three dimensions and their mean
(Overall), with standard errors clustered by source video. A reply that is not a valid
prediction scores 0 (the full-benchmark rule); a judge that fails, after the retries of inspect's
model layer, leaves the step unscored (reason ``judge_failure``), never 0.
"""

import importlib.util
import sys
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    ContentVideo,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

_HARNESS = Path(__file__).resolve().parent.parent / "harness" / "intent_studio_harness.py"


def _load():
    name = "intent_studio_harness"
    if name in sys.modules and getattr(sys.modules[name], "__file__", "") == str(_HARNESS):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _HARNESS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


H = _load()
DIMENSIONS = ("local", "procedural", "next", "overall")


def _media(path: str, interface: str):
    if interface == "video" and path.endswith(".mp4"):
        return ContentVideo(video=path, format="mp4")
    return ContentImage(image=path)


def _samples(condition: str, interface: str, system_role: bool) -> list[Sample]:
    samples = []
    for row in H.rows():
        built = H.prediction_prompt(row, condition, interface)
        if built is None:  # no window for this step under the condition (as in studio runs)
            continue
        system, user, paths = built
        media = [_media(p, interface) for p in paths]
        if system_role:
            messages = [
                ChatMessageSystem(content=system),
                ChatMessageUser(content=[ContentText(text=user), *media] if media else user),
            ]
        else:
            text = system + "\n\n" + user
            messages = [
                ChatMessageUser(content=[ContentText(text=text), *media] if media else text)
            ]
        samples.append(
            Sample(
                id=row["sample_id"],
                input=messages,
                target=row["next_step"],
                metadata={"video": row["video_sha256"], "row": row},
            )
        )
    return samples


@scorer(metrics={d: [mean(), stderr(cluster="video")] for d in DIMENSIONS})
def reference_judge(max_retries: int = 5, timeout: int = 300):
    """The reference judge (the ``grader`` model role) on the three dimensions and Overall."""

    async def score(state: TaskState, target: Target) -> Score:
        row = state.metadata["row"]
        reply = state.output.completion if state.output else ""
        prediction = H.parse_prediction(reply)
        if prediction is None:
            zero = dict.fromkeys(DIMENSIONS, 0)
            return Score(value=zero, answer=reply, explanation="not a valid prediction",
                         metadata={"status": "invalid"})  # fmt: skip
        system, user = H.judge_prompt(row, prediction)
        judge_package = H.package("reference_judge")
        config = GenerateConfig(
            temperature=judge_package["sampling"].get("temperature", 0),
            max_tokens=judge_package["sampling"].get("max_tokens"),
            max_retries=max_retries,
            timeout=timeout,
        )
        try:
            output = await get_model(role="grader").generate(
                [ChatMessageSystem(content=system), ChatMessageUser(content=user)], config=config
            )
            if output.stop_reason in ("max_tokens", "content_filter"):
                raise H.JudgeFailure(f"the judge's reply ended with {output.stop_reason}")
            scores = H.parse_judgement(output.completion)
        except Exception as exc:  # a judge failure of any kind: unscored, never 0
            return Score.unscored(
                reason="judge_failure",
                answer=reply,
                explanation=f"judge failure: {exc}",
                metadata={"status": "judge_failure"},
            )
        value = {d: scores[d] for d in DIMENSIONS[:3]}
        value["overall"] = H.overall(value)
        return Score(value=value, answer=reply, explanation=scores["next_match_type"],
                     metadata={"status": "judged"})  # fmt: skip

    return score


@task
def intent_studio(
    condition: str = "",
    interface: str = "frames",
    system_role: bool = True,
    grader_max_retries: int = 5,
    grader_timeout: int = 300,
):
    """The published benchmark under one of its conditions (default: the first published).
    ``system_role=false`` puts the system prompt at the top of the user turn; the grader's
    retries and timeout bound each judge call before it counts as a judge failure."""
    published = H.describe()
    condition = condition or published["conditions"][0]
    if condition not in published["conditions"]:
        raise ValueError(
            f"condition {condition!r} is not published here; use one of {published['conditions']}"
        )
    if interface not in ("frames", "video"):
        raise ValueError("interface is frames or video")
    prediction = H.package("prediction")
    return Task(
        dataset=MemoryDataset(
            _samples(condition, interface, system_role), name=f"{published['name']}:{condition}"
        ),
        solver=generate(),
        scorer=reference_judge(max_retries=grader_max_retries, timeout=grader_timeout),
        config=GenerateConfig(
            temperature=prediction["sampling"].get("temperature", 0),
            max_tokens=prediction["sampling"].get("max_tokens"),
        ),
        name=f"intent_studio_{published['task_name']}_{condition}",
        metadata={
            "set": published["name"],
            "manifest_sha256": published["manifest_sha256"],
            "prediction_package_sha256": published["packages"]["prediction"]["sha256"],
            "judge_package_sha256": published["packages"]["reference_judge"]["sha256"],
        },
    )
