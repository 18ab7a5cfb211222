"""Schedule changes as e-mail invitations: iTIP (RFC 5546) over e-mail (iMIP, RFC 6047).

Pure message building (`address`, `itip`, `messages`, `plan`) and the one edge that talks to the
network, the SMTP relay (`smtp`). The store keeps who gets what (server.store.invitations); the
jobs decide when (server.jobs.invitations); the API takes the opt-in (server.web.invitations_api).
Layer: above server.links, below server.caldav and server.jobs.
"""

from __future__ import annotations

from server.errors import ServerError


class MailError(ServerError):
    """Base of every expected failure around invitations by e-mail."""
