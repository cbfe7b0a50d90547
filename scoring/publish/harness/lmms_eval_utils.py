"""lmms-eval hooks of a published Intent Studio benchmark (copied as ``lmms_eval/utils.py``).

Every path is taken from this file's place, never from the working directory, so the folder runs
from wherever it is copied. The prompt, the media, the reply contract and the judge come from
``../harness/intent_studio_harness.py`` (standard library only), which the inspect_ai task uses
too. The task's ``lmms_eval_specific_kwargs`` choose the condition, the media interface
(``frames``: images; ``video``: the clip) and whether the package's system prompt goes in a
``system`` message as in studio runs (``system_role: true``, chat models) or at the top of the
user turn (``false``; plain-text models always get it that way: their hook has one string).
"""

import importlib.util
import sys
from pathlib import Path

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
_DEFAULTS = {"condition": "official", "interface": "frames", "system_role": True}


def _options(kwargs) -> dict:
    options = dict(_DEFAULTS)
    for key in _DEFAULTS:
        if kwargs and key in kwargs:
            options[key] = kwargs[key]
    if isinstance(options["system_role"], str):
        options["system_role"] = options["system_role"].strip().lower() in ("1", "true", "yes")
    return options


def _built(doc, kwargs):
    o = _options(kwargs)
    built = H.prediction_prompt(doc, o["condition"], o["interface"])
    if built is None:  # process_docs leaves such steps out; this is a guard
        raise ValueError(f"step {doc['sample_id']} has no {o['condition']} media")
    return o, built


def doc_to_visual(doc, lmms_eval_specific_kwargs=None):
    """The step's shipped media as paths: its frames (PNG) or its clip (MP4)."""
    _o, (_system, _user, paths) = _built(doc, lmms_eval_specific_kwargs)
    return paths


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """One string for plain-text models: the system prompt, a blank line, the user text."""
    _o, (system, user, _paths) = _built(doc, lmms_eval_specific_kwargs)
    return system + "\n\n" + user


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """Chat models: the package's system prompt as a system message and the user text followed
    by the media, as studio runs send them (``system_role: false`` folds the system prompt into
    the user turn, for models that take no system message)."""
    o, (system, user, paths) = _built(doc, lmms_eval_specific_kwargs)
    kind = "video" if o["interface"] == "video" and paths and paths[0].endswith(".mp4") else "image"
    media = [{"type": kind, "url": p} for p in paths]
    if not o["system_role"]:
        return [
            {"role": "user", "content": [{"type": "text", "text": system + "\n\n" + user}, *media]}
        ]
    return [
        {"role": "system", "content": [{"type": "text", "text": system}]},
        {"role": "user", "content": [{"type": "text", "text": user}, *media]},
    ]


def _docs_with(condition):
    def process_docs(dataset):
        """Leaves out the steps the condition has no window for (as studio runs do)."""
        frames, clip = f"media_{condition}_frames", f"media_{condition}_clip"
        if condition in ("scene_only", "prompt_only") or frames not in dataset.column_names:
            return dataset
        if clip in dataset.column_names:
            return dataset.filter(lambda d: d[frames] is not None and d[clip] is not None)
        return dataset.filter(lambda d: d[frames] is not None)

    process_docs.__name__ = f"docs_{condition}"
    return process_docs


for _condition in H.describe()["conditions"]:
    globals()[f"docs_{_condition}"] = _docs_with(_condition)


def process_results(doc, results):
    """Per step: the reply parsed and judged (``status`` judged / invalid / judge_failure); every
    metric reads the same record, and the aggregations below summarise them."""
    reply = results[0] if results else ""
    record = H.score_reply(doc, reply or "").as_dict()
    return dict.fromkeys(METRICS, record)


METRICS = H.METRICS


def _aggregate(key):
    def aggregate(records):
        return H.summary(list(records))[key]

    aggregate.__name__ = f"agg_{key}"
    return aggregate


for _metric in METRICS:
    globals()[f"agg_{_metric}"] = _aggregate(_metric)
