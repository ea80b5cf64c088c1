"""Model providers: adapters over the official SDKs, the provider registry and rate cards.

Import from the submodules (``providers``, ``rate_cards``, ``catalog``, ``errors``,
``usage``); this package imports nothing itself so that reading rate cards does
not load four provider SDKs.
"""
