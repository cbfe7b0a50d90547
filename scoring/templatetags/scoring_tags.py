"""Display filters of the scoring pages."""

from django import template

from scoring.judges.scores import VIDEO_DIMENSIONS
from studio.vocabulary import label

register = template.Library()


@register.filter
def score_name(code) -> str:
    """A score's column: a reference dimension (``local`` -> Local intent) or one of the video
    judge's diagnostics (``gf`` -> Grounding (GF))."""
    return label("diagnostic" if code in VIDEO_DIMENSIONS else "dimension", code)


@register.filter
def dimension_name(code) -> str:
    """A report's dimension: ``local`` -> Local intent; a gain test's ``local-procedural`` ->
    Local intent minus Procedural intent (with a minus sign)."""
    parts = str(code).split("-")
    return " \u2212 ".join(score_name(p) for p in parts)


@register.filter
def step_name(uid) -> str:
    """A step by its uid, as the workspace names it ("Step 3 of kitchen-tea.mp4"); the uid when
    this instance does not have the step."""
    from annotation.models import MicroStep

    step = MicroStep.objects.filter(uid=uid).select_related("video").first()
    return step.display_name if step else str(uid)
