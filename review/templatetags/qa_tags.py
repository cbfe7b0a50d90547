"""Display filters of the QA staff pages and reports: a group named as people read it, and a
stratum's value by its label."""

from django import template

from studio.vocabulary import label

register = template.Library()

# The strata of the QA report ("all" and the group fields) and their vocabularies.
STRATA = {"structure": "qa_structure", "category": "qa_category", "modality": "qa_modality"}


@register.filter
def qa_stratum(dimension) -> str:
    return "All groups" if dimension == "all" else label("qa_edit_field", dimension)


@register.filter
def qa_value(value, dimension) -> str:
    if dimension == "all":
        return "—"
    return label(STRATA[dimension], value) if dimension in STRATA else str(value)


@register.filter
def qa_group(uid) -> str:
    """The QA group with this uid, by its name (the newest version's); the uid itself when no
    group has it."""
    from review.qa.models import QaGroup

    group = QaGroup.objects.filter(uid=uid).select_related("video").order_by("-pk").first()
    return group.display_name if group else str(uid)
