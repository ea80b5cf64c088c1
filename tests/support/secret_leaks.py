"""Where a secret could end up, read back whole: every database row, a workflow's history, log records."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable

from sqlalchemy import select
from sqlmodel import SQLModel
from temporalio.client import Client

# Every module that declares tables, so the metadata lists them all.
import switchboard.models.all_tables  # noqa: F401
from switchboard.settings import Settings
from tests.support.inbound import db

FRAGMENT = 12


async def database_text(settings: Settings) -> str:
    """Every row of every table, as text."""
    lines: list[str] = []
    async with db(settings) as session:
        for table in SQLModel.metadata.sorted_tables:
            for row in (await session.execute(select(table))).all():
                lines.append(f"{table.name}: {tuple(row)!r}")
    return "\n".join(lines)


async def history_text(client: Client, workflow_id: str) -> str:
    """A workflow's whole history: its JSON and its raw protobuf bytes (payloads undecoded, as stored)."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    raw = b"".join(event.SerializeToString() for event in history.events)
    return history.to_json() + "\n" + raw.decode("utf-8", errors="replace")


def logged_text(records: Iterable[logging.LogRecord]) -> str:
    """Each record's message, extra fields and formatted exception (the traceback with its chain)."""
    formatter = logging.Formatter()
    lines: list[str] = []
    for record in records:
        lines.append(record.getMessage())
        lines.append(json.dumps({k: v for k, v in vars(record).items() if k != "exc_info"}, default=str))
        if record.exc_info:
            lines.append(formatter.formatException(record.exc_info))
    return "\n".join(lines)


def assert_absent(secret: str, text: str, *, where: str) -> None:
    """Neither the secret nor a FRAGMENT-character piece of its start or end is in ``text``."""
    for piece in (secret, secret[:FRAGMENT], secret[-FRAGMENT:]):
        at = text.find(piece)
        assert at == -1, f"{piece!r} found in {where}: ...{text[max(0, at - 200) : at + 200]}..."
