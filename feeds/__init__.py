"""confcal's schedule library: model, sources, merge, time zones, iCalendar rendering, catalogue.

No web code lives here.
"""
