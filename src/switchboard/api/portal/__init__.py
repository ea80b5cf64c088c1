"""The portal: the inbox (embeddable) and the operator console, served by the API itself.

``pages`` serves the HTML shells and the ES modules under /portal; ``embed``
adds the signed inbox links (POST /v1/inbox-embed/links), the session they are
exchanged for, and the inbox API behind that session. See docs/portal.md.
"""

from __future__ import annotations

from fastapi import APIRouter


def routers() -> list[APIRouter]:
    """The portal's routers, in registration order."""
    from switchboard.api.portal import embed, pages

    return [embed.links_router, embed.session_router, pages.router]
