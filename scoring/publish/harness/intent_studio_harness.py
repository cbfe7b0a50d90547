"""What every harness task of a published Intent Studio benchmark shares (standard library only).

This file is copied into the published folder as ``harness/intent_studio_harness.py``; the
lmms-eval and inspect_ai tasks beside it import it by its path, so the folder works wherever it is
copied. It holds:

- the folder: ``publish.json``, the rows (``data/test.jsonl``) and the prompt packages
  (``packages/*.json``), each package checked against its SHA-256 when it is loaded;
- the messages of a prediction call exactly as Intent Studio sends them: the package's system
  prompt as a ``system`` message, its user template with the call's data as one JSON document,
  then the media (images, or one video);
- the strict reply contracts (a prediction, a reference judgement), as the studio checks them;
- the reference judge over any OpenAI-compatible endpoint, with retries: 429, 408, 409, 425,
  every 5xx, timeouts and connection errors are tried again, after the provider's
  ``Retry-After`` when it sends one, else after a full-jitter exponential back-off. A judge that
  still fails, or whose reply breaks its contract, is a *judge failure*: recorded with its reason,
  counted apart and never scored;
- the summary: means of the three reference scores and Overall over the judged steps (a reply
  that is not a valid prediction scores 0, the full-benchmark rule), with standard errors
  clustered by source video.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import math
import os
import random
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("local_intent", "procedural_intent", "next_step")
DIMENSIONS = ("local", "procedural", "next")
SCORE_FIELDS = {
    "local": "local_intent_score",
    "procedural": "procedural_intent_score",
    "next": "next_plan_score",
}
MATCH_TYPES = ("observed", "plausible", "related", "none")
# What a harness reports of a run (lmms-eval: one metric each; ``summary`` computes them all).
METRICS = (
    "local",
    "procedural",
    "next",
    "overall",
    "local_se_clustered",
    "procedural_se_clustered",
    "next_se_clustered",
    "overall_se_clustered",
    "judged",
    "invalid_predictions",
    "judge_failures",
)
RETRIED = {408, 409, 425, 429}
FRAME_CONDITIONS = ("ordered", "shuffled", "last_frame", "first_frame")
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


# --- the folder ---------------------------------------------------------------------------------


def canonical(value) -> bytes:
    """The canonical bytes of a package or record (RFC 8785 for the types they hold)."""
    return json.dumps(
        value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def describe(root: Path = ROOT) -> dict:
    """``publish.json``: the set, its conditions, its packages and its media columns."""
    return json.loads((Path(root) / "publish.json").read_text(encoding="utf-8"))


def package(purpose: str, root: Path = ROOT) -> dict:
    """The package of ``purpose`` (``prediction`` or ``reference_judge``), refused unless its
    canonical bytes hash to the SHA-256 that publish.json records."""
    entry = describe(root)["packages"][purpose]
    data = json.loads((Path(root) / entry["file"]).read_text(encoding="utf-8"))
    digest = hashlib.sha256(canonical(data)).hexdigest()
    if digest != entry["sha256"]:
        raise RuntimeError(
            f"{entry['file']} hashes to {digest}, not {entry['sha256']}: the package was changed"
        )
    return data


def rows(root: Path = ROOT) -> list[dict]:
    """The rows of ``data/test.jsonl``."""
    with open(Path(root) / "data" / "test.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def media_path(relative: str, root: Path = ROOT) -> str:
    """A media path of a row (``media/<sha256>.png``) as a path on this machine."""
    return str(Path(root) / relative)


def media_files(row: dict, condition: str, interface: str) -> list[str] | None:
    """The row's media for ``condition`` (relative paths), or None when the condition has no
    window for this step (it is then left out, as in studio runs). ``interface`` is ``frames``
    (images) or ``video`` (the clip; frame-set conditions are images whatever it is)."""
    if condition in ("scene_only", "prompt_only"):
        return []
    if interface == "video" and condition not in FRAME_CONDITIONS:
        clip = row.get(f"media_{condition}_clip")
        return None if clip is None else [clip]
    frames = row.get(f"media_{condition}_frames")
    return None if frames is None else list(frames)


def scene_name(slug: str) -> str:
    """The scene as the scene-only condition shows it: 'indoor/art_studio' -> 'art studio'."""
    return slug.rsplit("/", 1)[-1].replace("_", " ").replace("-", " ").strip()


def evidence(row: dict, condition: str, interface: str, count: int) -> dict:
    """The call data of a prediction, as the studio builds it for the condition."""
    if condition == "scene_only":
        return {"evidence": {"kind": "scene name", "scene": scene_name(row["scene"])}}
    if condition == "prompt_only":
        return {"evidence": {"kind": "none"}}
    if interface == "video" and condition not in FRAME_CONDITIONS:
        return {"evidence": {"kind": "video"}}
    return {"evidence": {"kind": "images", "count": count}}


def prompt(pkg: dict, data: dict) -> tuple[str, str]:
    """(system, user text) of a call: the package's prompts with the data as one JSON document."""
    schema = json.dumps(pkg["output_schema"], ensure_ascii=False, sort_keys=True)
    system = pkg["system"].replace("{{output_schema}}", schema, 1)
    document = json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2)
    user = _PLACEHOLDER.sub(lambda _m: document, pkg["user_template"], count=1)
    return system, user


def prediction_prompt(row: dict, condition: str, interface: str, root: Path = ROOT):
    """(system, user text, media paths) of one step's prediction call, or None when the
    condition has no window for the step."""
    files = media_files(row, condition, interface)
    if files is None:
        return None
    data = evidence(row, condition, interface, len(files))
    system, user = prompt(package("prediction", root), data)
    return system, user, [media_path(f, root) for f in files]


# --- reply contracts ----------------------------------------------------------------------------


def _json_text(content: str) -> str | None:
    text = content.strip()
    if text.startswith("```"):
        first, _, rest = text.partition("\n")
        if first.strip() not in ("```", "```json") or not rest.rstrip().endswith("```"):
            return None
        text = rest.rstrip()[:-3].strip()
    return text


def _object(content) -> dict | None:
    if not isinstance(content, str) or not content.strip():
        return None
    text = _json_text(content)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_prediction(content) -> dict | None:
    """The three fields of a valid prediction, or None (exactly the fields, non-empty text of at
    most 2,000 characters each)."""
    value = _object(content)
    if value is None or set(value) != set(FIELDS):
        return None
    for name in FIELDS:
        text = value[name]
        if not isinstance(text, str) or not 1 <= len(text) <= 2000:
            return None
    return {name: value[name] for name in FIELDS}


def _score(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100


def parse_judgement(content) -> dict:
    """The scores of candidate C01 in a reference judgement; ValueError naming what is wrong."""
    value = _object(content)
    if value is None or set(value) != {"evaluations"}:
        raise ValueError("the judge's reply is not one object with evaluations")
    rows_ = value["evaluations"]
    if not isinstance(rows_, list) or len(rows_) != 1 or not isinstance(rows_[0], dict):
        raise ValueError("the judge's reply does not answer exactly one candidate")
    row = rows_[0]
    wanted = {"candidate_id", *SCORE_FIELDS.values(), "next_plan_match_type", "brief_reason"}
    if set(row) != wanted or row["candidate_id"] != "C01":
        raise ValueError("the judge's evaluation does not have the contract's fields for C01")
    if not all(_score(row[f]) for f in SCORE_FIELDS.values()):
        raise ValueError("a judge score is not an integer from 0 to 100")
    if row["next_plan_match_type"] not in MATCH_TYPES:
        raise ValueError("the next-plan match type is not one of the contract's")
    if not isinstance(row["brief_reason"], str) or len(row["brief_reason"]) > 600:
        raise ValueError("the brief reason is not text of at most 600 characters")
    scores = {dim: row[name] for dim, name in SCORE_FIELDS.items()}
    scores["next_match_type"] = row["next_plan_match_type"]
    return scores


def reference(row: dict) -> dict:
    """The reference the judge compares with, as the studio sends it."""
    return {
        "local_intent": row["local_intent"],
        "procedural_intent": row["procedural_intent"],
        "observed_next_step": row["next_step"],
        "plausible_next_steps": list(row.get("plausible_next_steps") or []),
    }


def judge_prompt(row: dict, prediction: dict, root: Path = ROOT) -> tuple[str, str]:
    """(system, user) of the reference judge for one prediction (always candidate C01)."""
    data = {"reference": reference(row), "candidates": [{"candidate_id": "C01", **prediction}]}
    return prompt(package("reference_judge", root), data)


# --- the judge over HTTP ------------------------------------------------------------------------


class JudgeFailure(Exception):
    """The judge gave no usable answer; the step is not scored."""


@dataclass
class JudgeSettings:
    base_url: str
    model: str
    api_key: str = ""
    max_attempts: int = 6
    timeout: float = 120.0
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    retry_after_max: float = 300.0
    json_schema: bool = False

    @classmethod
    def from_environment(cls) -> JudgeSettings:
        """From ``INTENT_STUDIO_JUDGE_*`` variables (publishing.md lists them)."""
        env = os.environ
        base_url = env.get("INTENT_STUDIO_JUDGE_BASE_URL", "")
        model = env.get("INTENT_STUDIO_JUDGE_MODEL", "")
        if not base_url or not model:
            raise JudgeFailure(
                "no judge: set INTENT_STUDIO_JUDGE_BASE_URL and INTENT_STUDIO_JUDGE_MODEL"
            )
        return cls(
            base_url=base_url,
            model=model,
            api_key=env.get("INTENT_STUDIO_JUDGE_API_KEY", ""),
            max_attempts=int(env.get("INTENT_STUDIO_JUDGE_MAX_ATTEMPTS", "6")),
            timeout=float(env.get("INTENT_STUDIO_JUDGE_TIMEOUT", "120")),
            backoff_base=float(env.get("INTENT_STUDIO_JUDGE_BACKOFF_BASE", "1")),
            backoff_max=float(env.get("INTENT_STUDIO_JUDGE_BACKOFF_MAX", "60")),
            json_schema=env.get("INTENT_STUDIO_JUDGE_JSON_SCHEMA", "") == "1",
        )


def retry_after_seconds(value: str | None, limit: float) -> float | None:
    """A ``Retry-After`` header (seconds or an HTTP date) in seconds, at most ``limit``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), limit)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(max(0.0, when.timestamp() - time.time()), limit)


def backoff_seconds(attempt: int, base: float, ceiling: float) -> float:
    """Full jitter: uniform in [0, min(ceiling, base * 2**(attempt - 1))]."""
    return random.uniform(0, min(ceiling, base * 2 ** (attempt - 1)))  # noqa: S311 (not crypto)


def judge_body(settings: JudgeSettings, system: str, user: str, root: Path = ROOT) -> dict:
    pkg = package("reference_judge", root)
    body = {
        "model": settings.model,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        **pkg["sampling"],
    }
    if settings.json_schema:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": pkg["purpose"], "schema": pkg["output_schema"], "strict": True},
        }
    return body


def chat(settings: JudgeSettings, body: dict, sleep=time.sleep) -> tuple[str, list[dict]]:
    """POST one chat completion with retries; (reply text, attempts). Raises JudgeFailure."""
    url = settings.base_url.rstrip("/") + "/chat/completions"
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if settings.api_key:
        headers["Authorization"] = "Bearer " + settings.api_key
    attempts: list[dict] = []
    for attempt in range(1, max(1, settings.max_attempts) + 1):
        wait, error = None, ""
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=settings.timeout) as response:  # noqa: S310
                raw = response.read()
            attempts.append({"status": 200})
            try:
                payload = json.loads(raw)
            except ValueError:
                raise JudgeFailure("the judge's answer is not JSON") from None
            try:
                choice = payload["choices"][0]
                content = choice["message"]["content"]
            except (KeyError, IndexError, TypeError):
                raise JudgeFailure("the judge's answer is not a chat completion") from None
            if choice.get("finish_reason") in ("length", "content_filter"):
                raise JudgeFailure(f"the judge's reply ended with {choice['finish_reason']}")
            return content or "", attempts
        except urllib.error.HTTPError as exc:
            attempts.append({"status": exc.code})
            error = f"HTTP {exc.code}"
            if exc.code not in RETRIED and exc.code < 500:
                raise JudgeFailure(f"the judge answered {error}") from None
            wait = retry_after_seconds(exc.headers.get("Retry-After"), settings.retry_after_max)
        except (TimeoutError, urllib.error.URLError, ConnectionError) as exc:
            attempts.append({"status": None})
            error = f"no answer ({exc.__class__.__name__})"
        if attempt == settings.max_attempts:
            raise JudgeFailure(f"{error} after {attempt} attempt(s)")
        if wait is None:
            wait = backoff_seconds(attempt, settings.backoff_base, settings.backoff_max)
        sleep(wait)
    raise JudgeFailure("no attempt was made")


def judge(row: dict, prediction: dict, settings: JudgeSettings | None = None, root=ROOT) -> dict:
    """The reference judge's scores of one valid prediction: {local, procedural, next,
    next_match_type, attempts}. Raises JudgeFailure (never a score) when it cannot say."""
    settings = settings or JudgeSettings.from_environment()
    system, user = judge_prompt(row, prediction, root)
    content, attempts = chat(settings, judge_body(settings, system, user, root))
    try:
        scores = parse_judgement(content)
    except ValueError as exc:
        raise JudgeFailure(str(exc)) from None
    scores["attempts"] = len(attempts)
    return scores


# --- one step's record and the summary ----------------------------------------------------------


@dataclass
class StepResult:
    """What one step came to: ``judged`` (scores), ``invalid`` (the reply was not a prediction:
    0 on every dimension) or ``judge_failure`` (not scored, counted apart)."""

    sample_id: str
    video: str
    status: str
    scores: dict = field(default_factory=dict)
    reason: str = ""

    def as_dict(self) -> dict:
        return {
            "sample_id": self.sample_id,
            "video": self.video,
            "status": self.status,
            "scores": self.scores,
            "reason": self.reason,
        }


def score_reply(row: dict, reply: str, settings: JudgeSettings | None = None, root=ROOT):
    """A model's reply to one step, parsed and judged."""
    base = {"sample_id": row["sample_id"], "video": row["video_sha256"]}
    prediction = parse_prediction(reply)
    if prediction is None:
        zero = dict.fromkeys(DIMENSIONS, 0)
        return StepResult(**base, status="invalid", scores=zero, reason="not a valid prediction")
    try:
        scores = judge(row, prediction, settings, root)
    except JudgeFailure as exc:
        return StepResult(**base, status="judge_failure", reason=str(exc))
    return StepResult(**base, status="judged", scores=scores)


def overall(scores: dict) -> float:
    return sum(scores[d] for d in DIMENSIONS) / len(DIMENSIONS)


def clustered_mean(values: list[float], clusters: list[str]) -> tuple[float, float]:
    """(mean, standard error clustered by ``clusters``): the cluster-robust (CR1) standard error
    of a mean, sqrt(G / (G - 1) * sum_g (sum_{i in g} (x_i - mean))^2) / n; NaN when undefined."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    sums: dict[str, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + (value - mean)
    groups = len(sums)
    if groups < 2:
        return mean, math.nan
    return mean, math.sqrt(groups / (groups - 1) * sum(s * s for s in sums.values())) / n


def summary(results: list[dict]) -> dict:
    """Means (and clustered standard errors) of the three dimensions and Overall over the scored
    steps (judged, and invalid replies at 0); judge failures are counted apart, never scored."""
    scored = [r for r in results if r["status"] in ("judged", "invalid")]
    videos = [r["video"] for r in scored]
    out: dict = {
        "steps": len(results),
        "scored": len(scored),
        "judged": sum(r["status"] == "judged" for r in results),
        "invalid_predictions": sum(r["status"] == "invalid" for r in results),
        "judge_failures": sum(r["status"] == "judge_failure" for r in results),
        "videos": len(set(videos)),
    }
    for name in (*DIMENSIONS, "overall"):
        values = [
            overall(r["scores"]) if name == "overall" else float(r["scores"][name]) for r in scored
        ]
        out[name], out[f"{name}_se_clustered"] = clustered_mean(values, videos)
    failed = sorted({r["video"] for r in results if r["status"] == "judge_failure"})
    out["judge_failure_videos"] = failed
    return out
