"""Switchboard: a multi-tenant messaging service with an AI-agents runtime.

The design's folders sit here as subpackages: ``api`` (the HTTP edge), ``workflows`` and
``activities`` (Temporal), ``models``, ``store`` and ``domain``, with ``worker.py`` and ``cli.py`` beside
them. Installing the distribution adds this one name (and the standalone ``switchboard_client``).
"""
