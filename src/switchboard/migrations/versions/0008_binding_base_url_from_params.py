"""agent bindings: params.base_url moves into the base_url column (one stored value)

Before, params.base_url was an unknown params key, kept and ignored, so a binding created the spec's
way had no base URL and every tool call failed. Such a value (when it is a valid base URL and the
column is empty) becomes the column's; params keeps no base_url key either way.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04 21:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_bindings = sa.table(
    "agent_bindings",
    sa.column("id", sa.String()),
    sa.column("base_url", sa.String()),
    sa.column("params", sa.JSON()),
)


def _base_url(value: Any) -> str | None:
    """The rule of the API at this revision: absolute http(s), no query, fragment or credentials."""
    if not isinstance(value, str) or len(value) > 2000:
        return None
    try:
        parts = urlsplit(value)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    return value.rstrip("/")


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(_bindings.c.id, _bindings.c.base_url, _bindings.c.params)).all()
    for binding_id, base_url, params in rows:
        if not isinstance(params, dict) or "base_url" not in params:
            continue
        kept = {key: value for key, value in params.items() if key != "base_url"}
        moved = base_url if base_url is not None else _base_url(params["base_url"])
        connection.execute(
            sa.update(_bindings).where(_bindings.c.id == binding_id).values(base_url=moved, params=kept)
        )


def downgrade() -> None:
    # The column stays the one value; params never held it at the previous revision's intent.
    pass
