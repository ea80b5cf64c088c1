"""End-to-end tests run the API as deployed: with its delivery worker (API_DELIVERY_SLOTS's default)."""

from __future__ import annotations

import pytest

from switchboard.settings import Settings


@pytest.fixture
def settings(settings: Settings) -> Settings:
    default = Settings.model_fields["api_delivery_slots"].default
    return settings.model_copy(update={"api_delivery_slots": default})
