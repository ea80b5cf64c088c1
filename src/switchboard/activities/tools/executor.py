"""The tool executor activity: one AgentTool call, from the model's arguments to a classified result.

Steps: open the binding's sealed secrets in memory; ``render_request`` (re-validates the declaration and
the input against ``input_schema`` and re-checks every security rule, so nothing leaves on a
ToolSecurityError); for ``jwt_from_token_endpoint`` get a token from the shared cache; send through the
egress-guarded client; classify; on ok extract with ``response.pick``.

Decisions:

- The activity returns a :class:`ToolCallResult` for every outcome of the tool: declaration, security,
  input, egress, timeout, size, 4xx, 5xx and pick errors alike. A tool's 5xx is an infra *result* (the
  run escalates); Temporal does not retry it. The activity raises only for our own infrastructure:
  a database error while using the token cache propagates and is retryable. Such an error can happen
  before the request or after a 401 (before the retry), never after a tool answered anything else,
  so a Temporal retry never repeats a request the tool processed.
- 401 on the main request with a ``jwt_from_token_endpoint`` token: the token is invalidated
  (compare-and-delete) and, if it came from the cache, fetched anew and the request sent once more; a
  token this very call fetched is not fetched again (the same credentials would give the same answer):
  the 401 is an infra result.
- What the model receives is capped at 64 KiB of JSON; a bigger pick is a ToolResponseExtractError
  (narrow the pick or lower ``max_items``), because it would also bloat workflow history.
- Secrets that do not open (wrong SWITCHBOARD_SECRETS_KEY, or sealed for another binding) are an infra
  result with the configuration hint, ``error_code`` SecretDecryptionError; nothing is sent.
- Fetched tokens and every binding secret are redacted from error texts and never logged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from temporalio import activity

from switchboard import tracing
from switchboard.activities.deps import ActivityDeps
from switchboard.activities.tools.egress import EgressGuard
from switchboard.activities.tools.exchange import CallFailed, Exchange, configuration_problem
from switchboard.activities.tools.http_client import ToolHttpClient, ToolHttpResponse
from switchboard.activities.tools.payloads import TokenUse, ToolBinding, ToolCallInput, ToolCallResult
from switchboard.activities.tools.token_cache import (
    IssuedToken,
    TokenCache,
    TokenWaitTimeout,
    lease_seconds_for,
)
from switchboard.domain.secrets_box import SecretDecryptionError, open_sealed
from switchboard.domain.tools import (
    BindingNamespace,
    Classification,
    ContextNamespace,
    RenderedRequest,
    TokenRequest,
    ToolCallClass,
    ToolConfigurationError,
    ToolInputError,
    ToolResponseExtractError,
    classify,
    classify_failure,
    classify_transport_failure,
    extract,
    parse_pick,
    render_request,
    validate_declaration,
)
from switchboard.models.base import utcnow
from switchboard.settings import Settings
from switchboard.store.tool_tokens import TokenKey

log = logging.getLogger("switchboard.tools")

MAX_MODEL_DATA_BYTES = 64 * 1024


@dataclass
class _TokenProgress:
    """How far the token handling of one call went, for the result even when the call fails."""

    use: TokenUse = "none"


class ToolActivities:
    """Executes AgentTool calls; built once per worker with the guarded HTTP client."""

    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        *,
        http: ToolHttpClient | None = None,
        clock: Callable[[], datetime] = utcnow,
        token_poll_seconds: float = 0.05,
    ) -> None:
        self._http = http or ToolHttpClient(EgressGuard(allow_private=settings.tool_egress_allow_private))
        self._exchange = Exchange(self._http)
        self._key: bytes | None = None
        try:
            self._key = settings.secrets_key_bytes
        except ValueError:
            pass
        self._tokens = (
            None
            if self._key is None
            else TokenCache(sessions, secrets_key=self._key, clock=clock, poll_seconds=token_poll_seconds)
        )

    @classmethod
    def from_deps(cls, deps: ActivityDeps) -> ToolActivities:
        """The worker's executor (its guarded client is separate from ``deps.http`` on purpose)."""
        return cls(deps.settings, deps.sessions)

    async def aclose(self) -> None:
        """Close the guarded client's connections."""
        await self._http.aclose()

    @activity.defn(name="execute_tool_call")
    async def execute_tool_call(self, call: ToolCallInput) -> ToolCallResult:
        """Run one tool call and classify it; tool failures are results, never exceptions."""
        started = time.monotonic()
        with tracing.span("tool call", {"switchboard.tool": call.tool_slug}) as span:
            result = await self._execute(call)
            if span is not None:
                span.set_attribute("switchboard.tool_call_class", str(result.call_class))
        result.latency_ms = int((time.monotonic() - started) * 1000)
        log.debug(
            "tool call finished",
            extra={
                "tenant_id": call.tenant_id,
                "tool_slug": call.tool_slug,
                "call_class": result.call_class,
                "status_code": result.status_code,
                "latency_ms": result.latency_ms,
                "token": result.token,
                "error_code": result.error_code,
                "workflow_id": activity.info().workflow_id if activity.in_activity() else None,
            },
        )
        return result

    async def _execute(self, call: ToolCallInput) -> ToolCallResult:
        try:
            binding = BindingNamespace(
                base_url=call.binding.base_url,
                params=call.binding.params,
                secrets=self._open_secrets(call.binding),
            )
        except SecretDecryptionError as exc:
            text = f"the binding's secrets could not be opened: {exc}"
            return _result(configuration_problem(text, code="SecretDecryptionError"))
        try:
            normalized = validate_declaration(call.declaration)
            rendered = _render(call, binding)
        except (ToolConfigurationError, ToolInputError) as exc:
            return _result(classify_failure(exc))
        redact = set(rendered.secret_values)
        progress = _TokenProgress()
        try:
            if rendered.token_request is None:
                answer = await self._exchange.send_main(rendered, redact=redact)
            else:
                answer = await self._send_with_token(call, rendered, rendered.token_request, redact, progress)
        except CallFailed as failed:
            return _result(failed.classification, token=progress.use)
        token_use = progress.use
        classification = classify(answer.status_code, answer.body, normalized["errors"], redact=redact)
        if classification.call_class is not ToolCallClass.OK:
            return _result(classification, token=token_use)
        try:
            data = _pick(answer.body, normalized["response"])
        except ToolResponseExtractError as exc:
            failure = classify_failure(exc)
            return _result(failure, token=token_use, status_code=answer.status_code)
        return _result(
            classification, token=token_use, data=data, terminates_thread=normalized["terminates_thread"]
        )

    def _open_secrets(self, binding: ToolBinding) -> dict[str, str]:
        if not binding.sealed_secrets:
            return {}
        if self._key is None:
            raise SecretDecryptionError("SWITCHBOARD_SECRETS_KEY is not configured")
        return {
            name: open_sealed(self._key, sealed, associated_data=binding.binding_id)
            for name, sealed in binding.sealed_secrets.items()
        }

    async def _send_with_token(
        self,
        call: ToolCallInput,
        rendered: RenderedRequest,
        token_request: TokenRequest,
        redact: set[str],
        progress: _TokenProgress,
    ) -> ToolHttpResponse:
        """The main request with a cached or fetched token; after a 401, invalidate and retry once."""
        tokens = self._tokens
        if tokens is None:
            text = "SWITCHBOARD_SECRETS_KEY is not configured, so tokens cannot be cached"
            raise CallFailed(configuration_problem(text, code="SecretDecryptionError"))
        key = tokens.key_for(tenant_id=call.tenant_id, tool_slug=call.tool_slug, request=token_request)
        issued = await self._issue(tokens, key, rendered, token_request, redact)
        progress.use = "fetched" if issued.fetched else "reused"
        answer = await self._exchange.send_main(rendered.with_bearer_token(issued.token), redact=redact)
        if answer.status_code != 401:
            return answer
        await tokens.invalidate(key, sealed=issued.sealed)
        if issued.fetched:
            return answer
        progress.use = "refetched"
        issued = await self._issue(tokens, key, rendered, token_request, redact)
        return await self._exchange.send_main(rendered.with_bearer_token(issued.token), redact=redact)

    async def _issue(
        self,
        tokens: TokenCache,
        key: TokenKey,
        rendered: RenderedRequest,
        request: TokenRequest,
        redact: set[str],
    ) -> IssuedToken:
        """A token from the shared cache, fetched through the guarded client when the cache has none."""

        async def fetch() -> str:
            return await self._exchange.fetch_token(request, timeout_ms=rendered.timeout_ms, redact=redact)

        try:
            issued = await tokens.get(
                key,
                fetch=fetch,
                ttl_seconds=request.expires_in_sec,
                lease_seconds=lease_seconds_for(rendered.timeout_ms),
            )
        except TokenWaitTimeout as exc:
            raise CallFailed(classify_transport_failure(f"token endpoint: {exc}")) from exc
        redact.add(issued.token)
        return issued


def build_tool_activities(deps: ActivityDeps) -> list[Any]:
    """The executor's activity callables for the worker (activities/all_activities.py)."""
    return [ToolActivities.from_deps(deps).execute_tool_call]


def _render(call: ToolCallInput, binding: BindingNamespace) -> RenderedRequest:
    context = ContextNamespace(**call.context.model_dump())
    return render_request(call.declaration, input=call.input, binding=binding, context=context)


def _pick(body: Any, response: dict[str, Any]) -> Any:
    data = extract(parse_pick(response["pick"]), body, max_items=response["max_items"])
    size = len(json.dumps(data, ensure_ascii=False, default=str).encode())
    if size > MAX_MODEL_DATA_BYTES:
        raise ToolResponseExtractError(
            f"the picked data is {size} bytes, more than the {MAX_MODEL_DATA_BYTES} the model may receive; "
            "narrow response.pick or lower response.max_items",
            field="declaration.response.pick",
            size=size,
        )
    return data


def _result(
    classification: Classification,
    *,
    token: TokenUse = "none",
    data: Any = None,
    status_code: int | None = None,
    terminates_thread: bool = False,
) -> ToolCallResult:
    ok = classification.call_class is ToolCallClass.OK
    return ToolCallResult(
        call_class=classification.call_class.value,
        data=data if ok else None,
        hint=classification.hint,
        error=classification.error,
        error_code=classification.error_code,
        status_code=classification.status_code if classification.status_code is not None else status_code,
        escalates=classification.escalates,
        token=token,
        terminates_thread=ok and terminates_thread,
    )
