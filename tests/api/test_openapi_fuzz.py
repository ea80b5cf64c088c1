"""Schemathesis against the live ASGI app: the OpenAPI document must tell the truth.

Every operation of /openapi.json is fuzzed with a bounded number of generated
requests sent with real credentials (a provisioned tenant's sandbox key, the
operator key, a valid X-Hub-Signature-256 on the channel webhook), and each
answer is checked against the document: no 5xx, a documented status, the
documented content type, a body valid for the documented schema and the
documented headers. The sandbox key validates sends exactly like a live key
but answers without Temporal workers or an upstream, so every send operation
is covered without a live channel.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

import hypothesis
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from switchboard.api.app import create_app
from switchboard.settings import Settings
from tests.conftest import ADMIN_KEY, APP_SECRET

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

# Invalid requests must be refused with a documented 4xx, never accepted or answered 5xx.
NEGATIVE_CHECKS = [*CHECKS, negative_data_rejection]
# Negative cases judged: a broken path or body. Not judged, with the reason: a broken header
# (the test adds the credentials itself, so a "missing X-API-Key" case would carry one
# anyway; missing and wrong keys are covered by tests/api/test_auth.py), and a broken query
# (mostly unknown parameters, which the API ignores by design like most HTTP APIs; the
# bounds of known ones are declared and checked in the positive run).
PATH = ParameterLocation.PATH
JUDGED_NEGATIVE = {PATH, ParameterLocation.BODY}

# 25 examples per operation: about 35 s for the whole document on 2 cores.
MAX_EXAMPLES = 25
NEGATIVE_EXAMPLES = 10
REQUEST_TIMEOUT = 15

# Operations not fuzzed, with the reason. Everything else in the document is.
EXCLUDED: dict[tuple[str, str], str] = {}

# Sends go with the sandbox key: validated exactly like live sends, answered without
# Temporal workers or an upstream (a live send with no worker would wait, then 202).
# Sandbox keys are held to 10 requests/s whatever the plan, so these are paced.
SANDBOX_OPERATIONS = {
    ("post", "/v1/messages"),
    ("post", "/v1/messages/media"),
    ("post", "/v1/messages/upload-media"),
    ("post", "/v1/messages/mark-read"),
    ("post", "/v1/messages/{message_id}/retry"),
    ("post", "/v1/inbox-embed/conversations/{id}/messages"),
    # With a real WABA or phone id these would call the upstream, which the test does not
    # run (a live key would then answer 503, rightly); the sandbox validates the same way.
    ("post", "/v1/wabas/{waba_id}/templates"),
    ("post", "/v1/wabas/{waba_id}/templates/sync"),
    ("post", "/v1/phone-numbers/{phone_id}/username"),
}
SANDBOX_INTERVAL = 0.12


def _provision(client: Any) -> dict[str, str]:
    admin = {"X-Admin-Key": ADMIN_KEY}

    def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = client.post(path, json=body, headers=admin)
        assert response.status_code == 201, response.text
        return dict(response.json())

    # Enterprise with a custom limit: the fuzzer's pace must not turn every answer into a 429.
    tid = post("/v1/admin/tenants", {"name": "Fuzz", "plan": "enterprise"})["id"]
    patched = client.patch(f"/v1/admin/tenants/{tid}", json={"rate_limit_per_second": 100_000}, headers=admin)
    assert patched.status_code == 200, patched.text
    live_key = post(f"/v1/admin/tenants/{tid}/api-keys", {"mode": "live", "role": "owner"})["key"]
    test_key = post(f"/v1/admin/tenants/{tid}/api-keys", {"mode": "test", "role": "owner"})["key"]
    customer = post(f"/v1/admin/tenants/{tid}/customers", {"name": "Fuzz customer"})
    post(f"/v1/admin/tenants/{tid}/wabas", {"waba_id": "910000000001", "access_token": "token"})
    post(
        f"/v1/admin/tenants/{tid}/phone-numbers",
        {
            "phone_number_id": "810000000001",
            "display_phone_number": "+1 555 0000001",
            "waba_id": "910000000001",
            "customer_id": customer["id"],
        },
    )
    return {"tenant_id": tid, "live_key": live_key, "test_key": test_key, "customer_id": customer["id"]}


def _real_ids(client: Any, creds: dict[str, str]) -> dict[tuple[str, str], str]:
    """Ids of resources the tenant owns, by (path, parameter): half the examples use them.

    Random path parameters mostly meet the 404 branch; these reach the handlers'
    other answers. Admin paths keep random ids: a real tenant or key id there could
    suspend the fuzzer's own tenant or revoke its key and turn the rest into 401s.
    """
    live = {"X-API-Key": creds["live_key"]}
    sandbox = {"X-API-Key": creds["test_key"]}

    def post(path: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        response = client.post(path, json=body, headers=headers)
        assert response.status_code in (200, 201), response.text
        return dict(response.json())

    phone = client.get("/v1/phone-numbers", headers=live).json()["data"][0]
    message = post(
        "/v1/messages",
        {"phone_number_id": "810000000001", "to": "14155550101", "type": "text", "text": {"body": "hi"}},
        sandbox,
    )
    webhook = post("/v1/webhooks", {"url": "https://hooks.example.com/fuzz"}, live)
    tool = post(
        "/v1/agent-tools",
        {
            "slug": "fuzz-tool",
            "name": "Find slots",
            "description": "Finds free slots",
            "declaration": {
                "description": "Looks up free slots on a date",
                "input_schema": {"type": "object", "properties": {"date": {"type": "string"}}},
                "request": {"method": "GET", "url": "{{binding.base_url}}/slots"},
                "response": {"pick": "data.slots"},
            },
        },
        live,
    )
    agent = post(
        "/v1/agents", {"name": "Fuzz agent", "provider": "anthropic", "model": "claude-sonnet-4-6"}, live
    )
    version = post(
        f"/v1/agents/{agent['id']}/versions", {"system_prompt": "Be brief.", "tools": [tool["slug"]]}, live
    )
    binding = post(
        "/v1/agent-bindings",
        {
            "name": "Fuzz binding",
            "agent_version_id": version["id"],
            "scope": "tenant",
            "params": {"base_url": "https://tools.example"},
        },
        live,
    )
    return {
        ("/v1/customers/{customer_id}", "customer_id"): creds["customer_id"],
        ("/v1/phone-numbers/{id}", "id"): phone["id"],
        ("/v1/phone-numbers/{phone_id}/username", "phone_id"): phone["id"],
        ("/v1/messages/{message_id}", "message_id"): message["id"],
        ("/v1/messages/{message_id}/retry", "message_id"): message["id"],
        ("/v1/wabas/{waba_id}/templates", "waba_id"): "910000000001",
        ("/v1/wabas/{waba_id}/templates/sync", "waba_id"): "910000000001",
        ("/v1/webhooks/{webhook_id}", "webhook_id"): webhook["id"],
        ("/v1/webhooks/{webhook_id}/test", "webhook_id"): webhook["id"],
        ("/v1/webhooks/{webhook_id}/reactivate", "webhook_id"): webhook["id"],
        ("/v1/agents/{agent_id}", "agent_id"): agent["id"],
        ("/v1/agents/{agent_id}/versions", "agent_id"): agent["id"],
        ("/v1/agent-tools/{slug}", "slug"): tool["slug"],
        ("/v1/agent-tools/{slug}/records", "slug"): tool["slug"],
        ("/v1/agent-versions/{version_id}", "version_id"): version["id"],
        ("/v1/agent-bindings/{binding_id}", "binding_id"): binding["id"],
    }


def _broken(case: Any) -> set[ParameterLocation]:
    """Where a negative case breaks the document."""
    return {where for where in ParameterLocation if case.meta is not None and case.meta.is_negative_at(where)}


def _signed(body: Any) -> tuple[bytes, str]:
    raw = json.dumps(body).encode()
    return raw, "sha256=" + hmac.new(APP_SECRET.encode(), raw, hashlib.sha256).hexdigest()


def _fuzz(settings: Settings, *, mode: GenerationMode, checks: list[Any], max_examples: int) -> None:
    """Fuzz every operation in ``mode`` and fail with every operation's findings at once."""
    app = create_app(settings)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    started = time.monotonic()
    with asgi.get_client(app) as client:
        creds = _provision(client)
        real = _real_ids(client, creds)
        examples = [0]
        live = {"X-API-Key": creds["live_key"], "X-Admin-Key": ADMIN_KEY}
        sandbox = {"X-API-Key": creds["test_key"], "X-Admin-Key": ADMIN_KEY}
        last_sandbox = [0.0]
        failures: list[str] = []
        covered = 0
        statuses: dict[int, int] = {}
        for result in schema.get_all_operations():
            operation = result.ok()
            if (operation.method.lower(), operation.path) in EXCLUDED:
                continue
            covered += 1

            @given(case=operation.as_strategy(generation_mode=mode))
            @hypothesis.settings(
                max_examples=max_examples,
                deadline=None,
                derandomize=True,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            def run(case: Any) -> None:
                op = (case.operation.method.lower(), case.operation.path)
                examples[0] += 1
                if mode is GenerationMode.NEGATIVE and not _broken(case) & JUDGED_NEGATIVE:
                    return
                if examples[0] % 2 == 0 and case.path_parameters and PATH not in _broken(case):
                    case.path_parameters = {
                        name: real.get((case.operation.path, name), value)
                        for name, value in case.path_parameters.items()
                    }
                # Signed by us in positive mode only: a negative case keeps the headers it was
                # generated with (often no signature), which the channel webhook must refuse.
                if op == ("post", "/channel/webhook") and mode is GenerationMode.POSITIVE:
                    raw, signature = _signed(case.body)
                    response = client.post(
                        case.formatted_path,
                        data=raw,
                        headers={"Content-Type": "application/json", "X-Hub-Signature-256": signature},
                        timeout=REQUEST_TIMEOUT,
                    )
                    case.validate_response(response, checks=checks)
                    return
                headers = live
                if op in SANDBOX_OPERATIONS:
                    headers = sandbox
                    time.sleep(max(0.0, last_sandbox[0] + SANDBOX_INTERVAL - time.monotonic()))
                    last_sandbox[0] = time.monotonic()
                response = case.call(session=client, headers=headers, timeout=REQUEST_TIMEOUT)
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                case.validate_response(response, checks=checks, headers=headers)

            try:
                run()
            except Unsatisfiable:
                # Nothing in this operation can be broken (no parameters, no body): no negative case.
                continue
            except Exception as exc:  # noqa: BLE001 - collect every operation's failures, then report
                failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    elapsed = time.monotonic() - started
    print(
        f"schemathesis ({mode.value}): {covered} operations fuzzed in {elapsed:.1f}s;"
        f" statuses {sorted(statuses.items())}"
    )
    assert not failures, "\n\n".join(failures)


def test_openapi_document_tells_the_truth(settings: Settings) -> None:
    """Valid requests by the document: no 5xx, and every answer is one the document declares."""
    _fuzz(settings, mode=GenerationMode.POSITIVE, checks=CHECKS, max_examples=MAX_EXAMPLES)


def test_requests_the_document_forbids_are_rejected(settings: Settings) -> None:
    """Requests that break the document (wrong types, missing fields, out of bounds) get a 4xx it declares."""
    _fuzz(settings, mode=GenerationMode.NEGATIVE, checks=NEGATIVE_CHECKS, max_examples=NEGATIVE_EXAMPLES)
