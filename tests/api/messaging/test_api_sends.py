"""The API runs the first workflow task of the live sends it starts (eager starts), beside its deliveries.

Which process ran a workflow task is read from Temporal's history (``started_by``): the API's worker
and client identities end with ``IDENTITY_SUFFIX``.
"""

from __future__ import annotations

import httpx
import pytest
from temporalio.worker import Worker

from switchboard.activities.workflow_starts import send_workflow_id
from switchboard.api.delivery_worker import IDENTITY_SUFFIX
from switchboard.settings import Settings
from tests.support.api_process import running_api, started_by
from tests.support.fake_channel import FakeChannel
from tests.support.media_files import FileServer
from tests.support.tenants import TenantFixture, provision_tenant

TO = "14155550100"
DEFAULT_SLOTS = Settings.model_fields["api_delivery_slots"].default


async def send(client: httpx.AsyncClient, tenant: TenantFixture, **content: object) -> httpx.Response:
    payload = {"phone_number_id": tenant.phone_number_id, "to": TO, **content}
    return await client.post("/v1/messages", json=payload, headers=tenant.headers())


@pytest.mark.parametrize("overrides", [{"api_delivery_slots": DEFAULT_SLOTS}], ids=["default-slots"])
async def test_with_no_worker_process_the_api_sends_what_it_starts(
    settings: Settings, channel: FakeChannel, temporal_env
):
    async with running_api(settings) as (client, _):
        tenant = await provision_tenant(client, settings.switchboard_admin_key)
        answer = await send(client, tenant, type="text", text={"body": "eager"})
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "sent"
    assert [s["text"] for s in channel.sends] == [{"body": "eager"}]
    identities = await started_by(temporal_env.client, send_workflow_id(answer.json()["id"]))
    assert identities and all(i.endswith(IDENTITY_SUFFIX) for i in identities), identities


@pytest.mark.parametrize("overrides", [{"api_delivery_slots": DEFAULT_SLOTS}], ids=["default-slots"])
async def test_a_send_with_a_media_link_starts_on_the_shared_queue(
    settings: Settings,
    channel: FakeChannel,
    temporal_env,
    worker: Worker,
    files: FileServer,
):
    """Its first step, the link's download and upload, is a regular activity, which the API does not run."""
    async with running_api(settings) as (client, _):
        tenant = await provision_tenant(client, settings.switchboard_admin_key)
        answer = await send(client, tenant, type="image", image={"link": files.link("photo.jpg")})
    assert answer.status_code == 201, answer.text
    assert channel.sends[0]["image"].get("id"), channel.sends
    identities = await started_by(temporal_env.client, send_workflow_id(answer.json()["id"]))
    assert identities and not any(i.endswith(IDENTITY_SUFFIX) for i in identities), identities


@pytest.mark.parametrize("overrides", [{"api_delivery_slots": 0}], ids=["no-slots"])
async def test_with_no_slots_every_send_goes_to_a_worker_process(
    settings: Settings, channel: FakeChannel, temporal_env, worker: Worker
):
    async with running_api(settings) as (client, app):
        assert app.state.delivery_worker is None
        tenant = await provision_tenant(client, settings.switchboard_admin_key)
        answer = await send(client, tenant, type="text", text={"body": "queued for a worker"})
    assert answer.status_code == 201, answer.text
    identities = await started_by(temporal_env.client, send_workflow_id(answer.json()["id"]))
    assert identities and not any(i.endswith(IDENTITY_SUFFIX) for i in identities), identities
