"""One guarded HTTP exchange of a tool call, with every way it can fail turned into a classification.

Egress refusals become ToolSecurityError (configuration hint, infra); an unresolvable host, a refused
connection, a timeout or an answer over the size cap are transport failures (infra). The token
pre-request of ``jwt_from_token_endpoint`` goes through the same client and the same mapping; a
non-2xx answer from the token endpoint is infra, and no token at ``token_response_path`` is
ToolResponseExtractError. Error texts name what failed ("tool request" or "token endpoint") with the
binding's secrets (and any fetched token) redacted. With tracing on, each request is a span and carries
its W3C ``traceparent`` (docs/operations.md, "Tracing").
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

import httpx

from switchboard import tracing
from switchboard.activities.tools.egress import EgressRefused
from switchboard.activities.tools.http_client import ResponseTooLarge, ToolHttpClient, ToolHttpResponse
from switchboard.domain.tools import (
    CONFIGURATION_PROBLEM_HINT,
    Classification,
    RenderedRequest,
    TokenRequest,
    ToolCallClass,
    ToolResponseExtractError,
    ToolSecurityError,
    classify_failure,
    classify_transport_failure,
    extract_token,
)

AUTH_FIELD = "declaration.request.auth"


class CallFailed(Exception):
    """Ends a call early with a classified outcome (it passes through the token cache, which re-raises)."""

    def __init__(self, classification: Classification) -> None:
        super().__init__(classification.error)
        self.classification = classification


def configuration_problem(text: str, *, code: str) -> Classification:
    """An infra outcome with the generic configuration hint, for problems on our side of the call."""
    return Classification(ToolCallClass.INFRA, CONFIGURATION_PROBLEM_HINT, text, error_code=code)


class Exchange:
    """Sends the main request or the token pre-request; raises CallFailed instead of transport errors."""

    def __init__(self, http: ToolHttpClient) -> None:
        self._http = http

    async def send_main(self, rendered: RenderedRequest, *, redact: Collection[str]) -> ToolHttpResponse:
        """The tool's one request, exactly as rendered."""
        return await self._send(
            "tool request",
            rendered.method,
            rendered.url,
            headers=rendered.headers,
            params=rendered.query,
            json_body=rendered.body,
            timeout_ms=rendered.timeout_ms,
            redact=redact,
            field="binding.base_url",
        )

    async def fetch_token(self, request: TokenRequest, *, timeout_ms: int, redact: Collection[str]) -> str:
        """Ask the token endpoint (``token_body`` as JSON) and read the token at its response path."""
        answer = await self._send(
            "token endpoint",
            request.method,
            request.url,
            headers=request.headers,
            json_body=request.body,
            timeout_ms=timeout_ms,
            redact=redact,
            field=f"{AUTH_FIELD}.token_url",
        )
        if not 200 <= answer.status_code <= 299:
            text = f"token endpoint answered HTTP {answer.status_code}{_excerpt(answer.body)}"
            raise CallFailed(classify_transport_failure(text, redact=redact))
        try:
            return extract_token(
                request.response_path, answer.body, field=f"{AUTH_FIELD}.token_response_path"
            )
        except ToolResponseExtractError as exc:
            raise CallFailed(classify_failure(exc)) from exc

    async def _send(
        self,
        what: str,
        method: str,
        url: str,
        *,
        headers: dict[str, str],
        timeout_ms: int,
        redact: Collection[str],
        field: str,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
    ) -> ToolHttpResponse:
        # With tracing on, a span per request, whose traceparent goes out with it (the tenant's API can
        # continue the trace). Its host only: a rendered path may hold a customer's data.
        traced = (
            {"http.request.method": method, "server.address": urlsplit(url).hostname or ""}
            if tracing.enabled()
            else None
        )
        try:
            with tracing.span(what, traced) as span:
                answer = await self._http.send(
                    method,
                    url,
                    headers={**headers, **tracing.outgoing_headers()},
                    params=params,
                    json_body=json_body,
                    timeout_ms=timeout_ms,
                )
                if span is not None:
                    span.set_attribute("http.response.status_code", answer.status_code)
                return answer
        except EgressRefused as exc:
            error = ToolSecurityError(f"{what}: {exc}", field=field, host=exc.host, reason=exc.reason)
            raise CallFailed(classify_failure(error)) from exc
        except ResponseTooLarge as exc:
            raise CallFailed(classify_transport_failure(f"{what}: {exc}", redact=redact)) from exc
        except (TimeoutError, httpx.TimeoutException) as exc:
            text = f"{what}: no complete answer within {timeout_ms} ms"
            raise CallFailed(classify_transport_failure(text, redact=redact)) from exc
        except httpx.HTTPError as exc:
            text = f"{what}: {type(exc).__name__}: {exc}"
            raise CallFailed(classify_transport_failure(text, redact=redact)) from exc


def _excerpt(body: Any) -> str:
    if body is None:
        return ""
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False, default=str)
    return f": {text[:200]}"
