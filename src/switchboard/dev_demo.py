"""`switchboard dev`'s demo tenant: provisioned once, kept in .switchboard/demo.json, and the banner.

The keys are reused across restarts while the database still knows them; a removed database file or
revoked keys get fresh ones (and a note saying why).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

# The dummy key the openai provider gets when it points at the simulator's FAKE model.
FAKE_MODEL_KEY = "sk-fake-model-dev"
DEMO_FILE = Path(".switchboard") / "demo.json"
DEMO_WABA_ID = "100000000000001"
DEMO_PHONE_NUMBER_ID = "100000000000011"


async def bootstrap_demo(settings: Any) -> tuple[dict[str, str], str | None]:
    """The demo tenant's keys and phone: those of .switchboard/demo.json while the database knows them.

    On the first start, and whenever the database no longer knows the saved keys (its file was
    removed, or the keys were revoked), fresh ones are provisioned and saved. Answers the demo and,
    when the saved keys were replaced, a note saying why.
    """
    from switchboard.store.database import create_engine, session_factory, unit_of_work

    saved = dict(json.loads(DEMO_FILE.read_text())) if DEMO_FILE.exists() else None
    engine = create_engine(settings.database_url)
    try:
        async with unit_of_work(session_factory(engine)) as session:
            if saved is not None and await demo_is_known(session, saved):
                return saved, None
            demo = await provision_demo(session, settings)
    finally:
        await engine.dispose()
    DEMO_FILE.write_text(json.dumps(demo, indent=2))
    DEMO_FILE.chmod(0o600)
    if saved is None:
        return demo, None
    where = make_url(settings.database_url).render_as_string(hide_password=True)
    return demo, (
        f"The keys in {DEMO_FILE} are unknown to the database {where} (was its file removed?); "
        "provisioned fresh ones."
    )


async def demo_is_known(session: Any, demo: dict[str, str]) -> bool:
    """Whether the database holds the demo's tenant, its live and sandbox keys unrevoked, and its phone."""
    from switchboard.domain.api_keys import hash_key
    from switchboard.models.tenancy import PhoneNumber
    from switchboard.store import tenancy

    for name in ("live_key", "test_key"):
        found = await tenancy.find_key(session, hash_key(demo.get(name, "")))
        if found is None or found[0].revoked_at is not None or found[1].id != demo.get("tenant_id"):
            return False
    phone = await session.get(PhoneNumber, demo.get("phone_id", ""))
    return phone is not None and phone.tenant_id == demo["tenant_id"]


async def provision_demo(session: Any, settings: Any) -> dict[str, str]:
    """Create the demo tenant, keys, WABA and phone number; new keys only, if the phone exists already."""
    from switchboard.models.tenancy_api import (
        ApiKeyCreate,
        CustomerCreate,
        PhoneNumberCreate,
        TenantCreate,
        WabaCreate,
    )
    from switchboard.store import provisioning, tenancy

    phone = await tenancy.find_phone_by_channel_id(session, DEMO_PHONE_NUMBER_ID)
    if phone is None:
        tenant = await provisioning.create_tenant(session, TenantCreate(name="Demo tenant"))
        customer = await provisioning.create_customer(
            session, tenant.id, CustomerCreate(name="Demo customer")
        )
        await provisioning.create_waba(
            session,
            tenant.id,
            WabaCreate(waba_id=DEMO_WABA_ID, access_token="demo-access-token"),
            secrets_key=settings.secrets_key_bytes,
        )
        phone = await provisioning.create_phone_number(
            session,
            tenant.id,
            PhoneNumberCreate(
                phone_number_id=DEMO_PHONE_NUMBER_ID,
                display_phone_number="+1 555 010 0011",
                waba_id=DEMO_WABA_ID,
                customer_id=customer.id,
            ),
        )
    _, live = await provisioning.create_api_key(
        session, phone.tenant_id, ApiKeyCreate(mode="live", role="owner")
    )
    _, test = await provisioning.create_api_key(
        session, phone.tenant_id, ApiKeyCreate(mode="test", role="owner")
    )
    return {
        "tenant_id": phone.tenant_id,
        "live_key": live,
        "test_key": test,
        "phone_id": phone.id,
        "phone_number_id": phone.phone_number_id,
    }


def model_line(base_url: str | None, *, sim: str) -> str:
    """The banner's line about the openai provider (FAKE model, a custom URL, or the real API)."""
    if base_url is None:
        return "  Model            openai uses OPENAI_API_KEY from the environment (real API)"
    if base_url == f"{sim}/_fake-model/v1":
        return (
            f"  Model            openai = the simulator's FAKE model ({base_url}), not a real LLM;\n"
            "                   set OPENAI_API_KEY to use the real API"
        )
    return f"  Model            openai -> {base_url} with the dummy key {FAKE_MODEL_KEY}"


def banner(
    demo: dict[str, str],
    *,
    api: str,
    sim: str,
    model: str | None = None,
    temporal_ui: str = "http://127.0.0.1:8233",
) -> str:
    """What `make dev` prints once everything is up."""
    admin_key = os.environ["SWITCHBOARD_ADMIN_KEY"]
    return f"""
Switchboard is running.

  API              {api}        (OpenAPI docs: {api}/docs)
  Portal           {api}/portal (inbox, agents, failed messages, webhooks; sign in with the live key)
  Temporal UI      {temporal_ui}
  Channel simulator {sim}
  Health           {api}/healthz
  Metrics          {api}/metrics (the worker's: http://127.0.0.1:{os.environ.get("WORKER_METRICS_PORT", "9101")}/metrics)
{model_line(model, sim=sim)}

Demo tenant {demo["tenant_id"]}
  live key     {demo["live_key"]}
  sandbox key  {demo["test_key"]}
  admin key    {admin_key}
  phone number {demo["phone_id"]} (channel id {demo["phone_number_id"]})

Try it:
  curl -s {api}/v1/phone-numbers/{demo["phone_id"]} -H "X-API-Key: {demo["live_key"]}"
  curl -s {api}/v1/messages -H "X-API-Key: {demo["live_key"]}" -H "Content-Type: application/json" \\
    -d '{{"phone_number_id":"{demo["phone_number_id"]}","to":"14155550100","type":"text","text":{{"body":"Hello from Switchboard"}}}}'

Shell variables used by the docs' examples (docs/agents.md walks an agent through a conversation):
  export SB={api} SIM={sim} KEY={demo["live_key"]} \\
    ADMIN_KEY={admin_key} PHONE={demo["phone_id"]} PHONE_NUMBER_ID={demo["phone_number_id"]}

Secrets live in .switchboard/env; keys in .switchboard/demo.json. Ctrl-C stops everything.
"""
