"""Display filters of the audit report: a fraction as a percentage, a statistic with three
decimals, and a dash where a value is undefined (the JSON keeps every value unrounded)."""

from django import template

from studio.vocabulary import label

register = template.Library()


@register.filter
def percent(value) -> str:
    if value is None:
        return "—"
    return f"{value * 100:.2f} %"


@register.filter
def decimal(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}"


@register.filter
def error_name(code, campaign) -> str:
    """An error type as the campaign names it: the default taxonomy's label, or the name the
    campaign gave its own code (review/audit/criteria.py)."""
    from review.audit.criteria import error_taxonomy

    names = {e.code: e.name for e in error_taxonomy((campaign.options or {}).get("error_types"))}
    return names.get(code) or label("error_type", code)
