from django import template

register = template.Library()


@register.filter
def clock(us) -> str:
    """Microseconds as m:ss.mmm (or h:mm:ss.mmm), the way the player shows times."""
    if us is None or us == "":
        return ""
    ms_total = int(us) // 1000
    hours, rest = divmod(ms_total, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, ms = divmod(rest, 1000)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{ms:03d}"
    return f"{minutes}:{seconds:02d}.{ms:03d}"
