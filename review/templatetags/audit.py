"""Display filters of the audit report: a fraction as a percentage, a statistic with three
decimals, and a dash where a value is undefined (the JSON keeps every value unrounded)."""

from django import template

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
