"""The queued-send sweep finds queued sends through an index, however many messages were ever sent.

The sweep runs every minute on every worker. Its query joins each phone number to its queued
messages, which both databases answer with one probe of ``ix_messages_phone_status`` a number rather
than a scan of the messages table by status. Seeded with 20,000 sent messages and three queued ones
(statistics gathered, as a production database has them), the plan names that index on both databases
and the sweep finds exactly the stale queued sends, oldest first.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import insert, text

from switchboard.domain.message_status import QUEUED, SENT
from switchboard.models.base import utcnow
from switchboard.models.messaging import Message
from switchboard.models.tenancy import PhoneNumber, Tenant, Waba
from switchboard.store import messages
from switchboard.store.database import create_engine, session_factory, unit_of_work
from switchboard.store.tables import table_of

SENT_ROWS = 20_000
PHONE = "800000000001"


def _row(message_id: str, *, status: str, at) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return {
        "id": message_id,
        "tenant_id": "ten_a",
        "phone_number_id": PHONE,
        "direction": "outbound",
        "message_type": "text",
        "status": status,
        "to_phone": "14155550100",
        "payload": {"type": "text", "text": {"body": "hi"}},
        "created_at": at,
        "occurred_at": at,
        "status_updated_at": at,
    }


async def test_the_sweep_probes_the_phone_status_index_and_finds_only_the_stale_queued_sends(database_url):
    engine = create_engine(database_url)
    sessions = session_factory(engine)
    now = utcnow()
    try:
        async with unit_of_work(sessions) as session:
            session.add(Tenant(id="ten_a", name="A"))
            await session.flush()
            session.add(Waba(tenant_id="ten_a", waba_id="waba_a", access_token_encrypted="sealed"))
            await session.flush()
            session.add(
                PhoneNumber(
                    tenant_id="ten_a", phone_number_id=PHONE, display_phone_number="+1 415", waba_id="waba_a"
                )
            )
        sent = [_row(f"msg_s{n:05d}", status=SENT, at=now - timedelta(seconds=n)) for n in range(SENT_ROWS)]
        queued = [
            _row("msg_q_old", status=QUEUED, at=now - timedelta(hours=2)),
            _row("msg_q_older", status=QUEUED, at=now - timedelta(hours=3)),
            _row("msg_q_fresh", status=QUEUED, at=now),
        ]
        async with engine.begin() as conn:
            await conn.execute(insert(table_of(Message)), sent + queued)
            await conn.execute(text("ANALYZE"))

        async with sessions() as session:
            found = await messages.stale_queued(
                session,
                unstarted_before=now - timedelta(minutes=5),
                abandoned_before=now - timedelta(hours=26),
                limit=100,
            )
        async with engine.connect() as conn:
            statement = messages.stale_queued_statement(
                unstarted_before=now - timedelta(minutes=5),
                abandoned_before=now - timedelta(hours=26),
                limit=100,
            )
            compiled = statement.compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
            params = compiled.params
            if compiled.positiontup:
                params = tuple(compiled.params[name] for name in compiled.positiontup)
            prefix = "EXPLAIN QUERY PLAN " if conn.dialect.name == "sqlite" else "EXPLAIN "
            plan = " ".join(str(row) for row in await conn.exec_driver_sql(prefix + str(compiled), params))
    finally:
        await engine.dispose()
    assert [message.id for message, _ in found] == ["msg_q_older", "msg_q_old"]
    assert all(phone.phone_number_id == PHONE for _, phone in found)
    print(f"plan: {plan}")
    assert "ix_messages_phone_status" in plan
    assert "'SCAN messages'" not in plan and "Seq Scan on messages" not in plan
