# Moments everywhere Django formats one (the admin's columns and fields, templates): to the
# second, with the zone's name, in the person's time zone (studio.middleware.TimeZoneMiddleware).
# The same format as studio.display.moment.
DATETIME_FORMAT = "Y-m-d H:i:s T"
SHORT_DATETIME_FORMAT = "Y-m-d H:i:s T"
DATE_FORMAT = "Y-m-d"
SHORT_DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i:s"
