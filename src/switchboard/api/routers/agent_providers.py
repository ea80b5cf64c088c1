"""The four built-in model providers, their models and current rate cards; the rate-card dependency."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from switchboard.activities.llm.catalog import provider_catalog
from switchboard.activities.llm.rate_cards import RateCardBook, UnknownProvider
from switchboard.api.deps import Caller, State
from switchboard.api.pagination import Paging, envelope
from switchboard.api.routing import JsonRoute
from switchboard.domain.errors import Unprocessable
from switchboard.models.base import utcnow
from switchboard.settings import Settings

router = APIRouter(prefix="/v1/agent-providers", tags=["agent providers"], route_class=JsonRoute)


async def rate_card_book(state: State) -> RateCardBook:
    """The rate cards loaded at start-up (built-ins plus RATE_CARD_PATH)."""
    return state.rate_cards


RateCards = Annotated[RateCardBook, Depends(rate_card_book)]


def require_known_model(book: RateCardBook, provider: str, model: str) -> None:
    """422 unless ``model`` is on ``provider``'s rate card; the details list the known models."""
    try:
        book.require_model(provider, model)
    except UnknownProvider as exc:
        details = {
            **(exc.details or {}),
            "model": model,
            "known_models": {name: book.models_for(name) for name in book.providers},
        }
        raise Unprocessable(exc.message, code=exc.code, details=details) from exc


def configured_providers(settings: Settings) -> list[str]:
    """The built-in providers that have an API key in this deployment."""
    keys = {
        "anthropic": settings.anthropic_api_key,
        "openai": settings.openai_api_key,
        "google": settings.gemini_api_key,
        "mistral": settings.mistral_api_key,
    }
    return [name for name, key in keys.items() if key]


@router.get("")
async def list_agent_providers(who: Caller, state: State, book: RateCards, paging: Paging) -> dict[str, Any]:
    """The providers with their models, the rate card in effect now and any scheduled price changes."""
    catalog = provider_catalog(book, at=utcnow(), configured=configured_providers(state.settings))
    start = (paging.page - 1) * paging.per_page
    return envelope(catalog[start : start + paging.per_page], paging=paging, total=len(catalog))
