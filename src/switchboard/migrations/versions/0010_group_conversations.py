"""groups: a WhatsApp group's posts are filed in a conversation of their own, with a contact standing
for the group (contacts.group_id, unique per customer) and conversations.group_id

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 16:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("contacts") as batch:
        batch.add_column(sa.Column("group_id", sa.String(), nullable=True))
        batch.create_unique_constraint("uq_contacts_customer_group", ["tenant_id", "customer_id", "group_id"])
    with op.batch_alter_table("conversations") as batch:
        batch.add_column(sa.Column("group_id", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.drop_column("group_id")
    with op.batch_alter_table("contacts") as batch:
        batch.drop_constraint("uq_contacts_customer_group", type_="unique")
        batch.drop_column("group_id")
