"""Provision tenants through the operator API, as an operator would."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import httpx

_counter = itertools.count(1)


@dataclass
class TenantFixture:
    id: str
    live_key: str
    test_key: str
    member_key: str
    waba_id: str
    customer_id: str
    phone_id: str
    phone_number_id: str
    extra: dict[str, Any] = field(default_factory=dict)

    def headers(self, key: str | None = None) -> dict[str, str]:
        return {"X-API-Key": key or self.live_key}


async def provision_tenant(
    client: httpx.AsyncClient, admin_key: str, *, plan: str = "standard", **tenant_fields: Any
) -> TenantFixture:
    """A tenant with owner live/test keys, a member key, a customer, a WABA and a phone."""
    admin = {"X-Admin-Key": admin_key}
    n = next(_counter)

    async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await client.post(path, json=body, headers=admin)
        assert response.status_code == 201, response.text
        return dict(response.json())

    tenant = await post("/v1/admin/tenants", {"name": f"Tenant {n}", "plan": plan, **tenant_fields})
    tid = tenant["id"]
    live = await post(f"/v1/admin/tenants/{tid}/api-keys", {"mode": "live", "role": "owner"})
    test = await post(f"/v1/admin/tenants/{tid}/api-keys", {"mode": "test", "role": "owner"})
    member = await post(f"/v1/admin/tenants/{tid}/api-keys", {"mode": "live", "role": "member"})
    customer = await post(f"/v1/admin/tenants/{tid}/customers", {"name": f"Customer {n}"})
    waba_id = f"{900000000000 + n}"
    await post(f"/v1/admin/tenants/{tid}/wabas", {"waba_id": waba_id, "access_token": f"token-{n}"})
    phone_number_id = f"{800000000000 + n}"
    phone = await post(
        f"/v1/admin/tenants/{tid}/phone-numbers",
        {
            "phone_number_id": phone_number_id,
            "display_phone_number": f"+1 555 {n:07d}",
            "waba_id": waba_id,
            "customer_id": customer["id"],
        },
    )
    return TenantFixture(
        id=tid,
        live_key=live["key"],
        test_key=test["key"],
        member_key=member["key"],
        waba_id=waba_id,
        customer_id=customer["id"],
        phone_id=phone["id"],
        phone_number_id=phone_number_id,
    )
