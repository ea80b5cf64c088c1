"""webhook endpoints: the auto-disable clock and throttled health evaluation

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 15:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import switchboard.models.base

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIMES = ("failing_since", "last_success_at", "last_failure_at", "health_checked_at")


def upgrade() -> None:
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        for name in _TIMES:
            batch_op.add_column(
                sa.Column(name, switchboard.models.base.UTCDateTime(timezone=True), nullable=True)
            )
        batch_op.add_column(
            sa.Column("exhausted_since_success", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("webhook_endpoints", schema=None) as batch_op:
        batch_op.drop_column("exhausted_since_success")
        for name in reversed(_TIMES):
            batch_op.drop_column(name)
