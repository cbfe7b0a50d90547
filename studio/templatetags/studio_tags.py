from django import template

from studio import display, vocabulary

register = template.Library()

# The same formats as everywhere else (studio/display.py).
register.filter("clock", display.clock)
register.filter("iso_time", display.iso_time)
register.filter("moment", display.moment)


@register.filter
def label(code, name: str) -> str:
    """``{{ run.outcome|label:"outcome" }}``: the code's one label (studio/vocabulary.py)."""
    return vocabulary.label(name, code)


@register.filter
def count(n, forms: str) -> str:
    """``{{ n|count:"criterion,criteria" }}`` -> ``1 criterion`` / ``3 criteria``."""
    singular, _, plural = forms.partition(",")
    return display.count(int(n or 0), singular, plural or singular + "s")


@register.simple_tag
def span(start_us, end_us) -> str:
    """``{% span step.start_us step.end_us %}`` -> ``0:12.000 - 0:13.400`` with an en dash."""
    return display.span(start_us, end_us)
