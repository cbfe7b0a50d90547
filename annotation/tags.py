"""Step tags: short labels a step carries for breakdowns (for example ``action_type:pour``).

A tag is either a plain label (``occluded``) or ``key:value`` (``action_type:pour``). Names,
keys and values are lower-case letters, digits and ``_ . -``, starting with a letter or digit,
at most 40 characters each; a step holds at most 20 tags and one value per key. Tags are
stored sorted and without repeats, so the same set always gives the same bytes.

Tags describe the step for analysis; like the labels they are never shown to a blinded role.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

PART = r"[a-z0-9][a-z0-9_.\-]{0,39}"
TAG_RE = re.compile(rf"^{PART}(:{PART})?$")
MAX_TAGS = 20


def clean_tags(value) -> list[str]:
    """The tags of ``value`` (a list of texts) lower-cased, stripped, sorted and unique; a
    ``ValidationError`` on ``tags`` names the first bad tag (nothing is changed)."""
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise ValidationError({"tags": "Must be a list of texts."})
    tags = sorted({t.strip().lower() for t in value if t.strip()})
    for tag in tags:
        if not TAG_RE.match(tag):
            raise ValidationError(
                {
                    "tags": f"{tag!r} is not a tag: use a label or key:value of lower-case "
                    "letters, digits, _ . - (at most 40 characters each)."
                }
            )
    if len(tags) > MAX_TAGS:
        raise ValidationError({"tags": f"At most {MAX_TAGS} tags per step."})
    keys = [t.split(":", 1)[0] for t in tags if ":" in t]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValidationError({"tags": f"One value per key: {repeated[0]} has several."})
    return tags


def tag_strata(tags_per_item: list[list[str]]) -> dict[str, list[str]]:
    """Breakdown strata from the items' tags: ``tag:<key>`` with the value as level for every
    key of a ``key:value`` tag, and ``tag:<label>`` with the single level ``<label>`` for every
    plain label; an item without the tag has the level ``""`` (no level: outside every level
    of that stratum). Names in sorted order."""
    keys: set[str] = set()
    labels: set[str] = set()
    for tags in tags_per_item:
        for tag in tags or ():
            (keys if ":" in tag else labels).add(tag.split(":", 1)[0] if ":" in tag else tag)
    strata: dict[str, list[str]] = {}
    for name in sorted(keys | labels):
        levels = []
        for tags in tags_per_item:
            level = ""
            for tag in tags or ():
                if name in keys and tag.startswith(f"{name}:"):
                    level = tag.split(":", 1)[1]
                elif name in labels and tag == name:
                    level = name
            levels.append(level)
        strata[f"tag:{name}"] = levels
    return strata
