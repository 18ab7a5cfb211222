"""The HTML pages of a conference, with their templates and static files."""
