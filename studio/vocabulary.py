"""The product's vocabulary: every code it stores (criteria, error types, decisions, outcomes,
conditions, ...) with the one label people read.

Each vocabulary is declared once, beside its codes, with ``vocabulary(name, entries)``: the
module that defines the codes registers them when it is imported (a ``TextChoices`` class, a
mapping or ``(code, label)`` pairs). Pages show ``label(name, code)`` (the ``label`` template
filter); exports, the API and the database keep the codes. Plain Python: any layer may declare
its vocabulary here without this module importing it.

A code a vocabulary does not list (a campaign's own error type, an imported QA category) is shown
humanised: ``object_state`` reads "Object state".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field


def humanise(code) -> str:
    """``"object_state"`` -> ``"Object state"``: the label of a code no vocabulary lists."""
    text = str(code).replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def in_sentence(text: str) -> str:
    """A label inside a sentence: "Blind LLM rater" -> "blind LLM rater"; an acronym keeps its
    capitals ("QA judge")."""
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


@dataclass(frozen=True)
class Vocabulary:
    name: str
    title: str  # how pages name the field these codes fill ("Outcome", "Condition")
    labels: Mapping[str, str] = field(default_factory=dict)

    def label(self, code) -> str:
        if code is None or code == "":
            return ""
        return self.labels.get(str(code)) or humanise(code)

    def choices(self) -> list[tuple[str, str]]:
        return list(self.labels.items())

    def __iter__(self) -> Iterator[str]:
        return iter(self.labels)

    def __contains__(self, code) -> bool:
        return str(code) in self.labels


_REGISTRY: dict[str, Vocabulary] = {}


def _pairs(entries) -> list[tuple[str, str]]:
    if isinstance(entries, Mapping):
        return [(str(k), str(v)) for k, v in entries.items()]
    choices = getattr(entries, "choices", None)  # a Django TextChoices class
    if choices is not None and not callable(choices):
        return [(str(k), str(v)) for k, v in choices]
    return [(str(k), str(v)) for k, v in entries]


def vocabulary(name: str, entries: Mapping | Iterable, *, title: str) -> Vocabulary:
    """Declare the vocabulary ``name``. Declaring it again with other labels is a programming
    error (two places would label the same codes)."""
    pairs = _pairs(entries)
    codes = [code for code, _ in pairs]
    if len(set(codes)) != len(codes):
        raise ValueError(f"vocabulary {name}: a code is given twice")
    vocab = Vocabulary(name=name, title=title, labels=dict(pairs))
    known = _REGISTRY.get(name)
    if known is not None and known != vocab:
        raise ValueError(f"vocabulary {name} is declared twice with different labels")
    _REGISTRY[name] = vocab
    return vocab


def vocabulary_of(name: str) -> Vocabulary:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(f"no vocabulary {name!r}") from None


def label(name: str, code) -> str:
    """The label of ``code`` in the vocabulary ``name``."""
    return vocabulary_of(name).label(code)


def vocabularies() -> dict[str, Vocabulary]:
    """Every declared vocabulary (the apps declare theirs when they load)."""
    return dict(_REGISTRY)


# The vocabularies whose codes name the fields of an answer or a form, in the order they are
# asked: a step's fields, the judged dimensions, the audit's criteria, the boundary windows,
# the QA checks and edit targets.
FIELD_VOCABULARIES = (
    "step_field",
    "dimension",
    "criterion",
    "condition",
    "qa_check",
    "qa_edit_field",
)
NO_FIELD = ("detail", "__all__", "non_field_errors", "payload")


def _field_word(part: str) -> str:
    for name in FIELD_VOCABULARIES:
        vocab = _REGISTRY.get(name)
        if vocab is not None and part in vocab:
            return vocab.label(part)
    return humanise(part)


def field_label(key: str) -> str | None:
    """How a page names the field an error is about: ``local`` -> "Local intent", ``C4`` ->
    "C4 Local validity", ``turns.0.evidence_alignment`` -> "Turn 1, Evidence alignment";
    ``None`` for an error about no field (``detail``)."""
    if not key or key in NO_FIELD:
        return None
    parts = str(key).split(".")
    words = []
    i = 0
    while i < len(parts):
        part = parts[i]
        if i + 1 < len(parts) and parts[i + 1].isdigit():  # a list and its position
            words.append(f"{humanise(part.removesuffix('s'))} {int(parts[i + 1]) + 1}")
            i += 2
            continue
        words.append(_field_word(part))
        i += 1
    return ", ".join(words)


def named_errors(errors: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """``{field: [messages]}`` with each message naming its field as the page labels it:
    ``{"local": ["Local intent: Give a whole number from 0 to 100."]}`` (the keys stay, so a
    page can still find the field)."""
    out = {}
    for key, messages in errors.items():
        name = field_label(key)
        out[key] = [f"{name}: {m}" if name else str(m) for m in messages]
    return out
