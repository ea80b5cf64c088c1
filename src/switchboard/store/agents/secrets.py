"""Binding secrets: sealed with AES-256-GCM at rest, bound to their binding, opened only for the tool executor."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from switchboard.domain.secrets_box import open_sealed, seal
from switchboard.models.agents import AgentBinding
from switchboard.models.base import utcnow
from switchboard.store.agents.bindings import get_binding


async def set_binding_secrets(
    session: AsyncSession, tenant_id: str, binding_id: str, secrets: dict[str, str], *, key: bytes
) -> AgentBinding:
    """Replace the binding's secrets with ``secrets``, each sealed with a fresh nonce (an empty map clears them)."""
    binding = await get_binding(session, tenant_id, binding_id)
    # The binding id is the associated data, so a sealed value copied onto another binding fails to open.
    binding.secrets_encrypted = {
        name: seal(key, value, associated_data=binding.id) for name, value in sorted(secrets.items())
    }
    binding.updated_at = utcnow()
    await session.flush()
    return binding


async def load_binding_secrets(
    session: AsyncSession, tenant_id: str, binding_id: str, key: bytes
) -> dict[str, str]:
    """The binding's secrets in clear, for ``{{binding.secret.<name>}}``; raises SecretDecryptionError on tampering."""
    binding = await get_binding(session, tenant_id, binding_id)
    return {
        name: open_sealed(key, sealed, associated_data=binding.id)
        for name, sealed in (binding.secrets_encrypted or {}).items()
    }
