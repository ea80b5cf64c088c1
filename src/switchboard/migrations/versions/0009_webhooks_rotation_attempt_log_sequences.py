"""webhooks: the previous signing secret and when it stops signing (secret rotation); each attempt's
answer body for the attempt log; each conversation's event counter (conversation_sequence)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 13:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from switchboard.models.base import UTCDateTime

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.add_column(sa.Column("previous_secret_encrypted", sa.String(), nullable=True))
        batch.add_column(sa.Column("previous_secret_expires_at", UTCDateTime(timezone=True), nullable=True))
    with op.batch_alter_table("webhook_attempts") as batch:
        batch.add_column(sa.Column("response_body", sa.Text(), nullable=True))
    with op.batch_alter_table("conversations") as batch:
        batch.add_column(sa.Column("event_sequence", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("event_sequence")
    with op.batch_alter_table("webhook_attempts") as batch:
        batch.drop_column("response_body")
    with op.batch_alter_table("webhook_endpoints") as batch:
        batch.drop_column("previous_secret_expires_at")
        batch.drop_column("previous_secret_encrypted")
