"""Cached tokens of ``jwt_from_token_endpoint`` tools, shared by every worker.

One row per (tenant, tool slug, cache key). The cache key is an HMAC of the rendered token request
(URL, method, headers, body, response path, TTL) under the secrets key, so two bindings of one tenant
that call the same tool with different hosts or credentials never share a token, and rotated
credentials miss the cache instead of reusing a token issued for the old ones.

The token itself is sealed (AES-256-GCM, associated data = tenant, slug and cache key); the row also
carries the single-flight lease: whoever holds ``lease_owner`` until ``lease_until`` is the one worker
fetching a new token while the others wait for it.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from switchboard.models.base import UTCDateTime


class ToolToken(SQLModel, table=True):
    __tablename__ = "tool_tokens"

    tenant_id: str = Field(primary_key=True)
    tool_slug: str = Field(primary_key=True)
    cache_key: str = Field(primary_key=True)
    token_sealed: str | None = None
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime, index=True)
    lease_owner: str | None = None
    lease_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
