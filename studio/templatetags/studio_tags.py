from django import template

from studio import display

register = template.Library()

# The same formats as everywhere else (studio/display.py).
register.filter("clock", display.clock)
register.filter("iso_time", display.iso_time)
