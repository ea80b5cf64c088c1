"""Text helpers: comparing answers, humanizing field names, cutting titles to the send limits."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

_EDGE_PUNCTUATION = " .,;:!¡?¿\"'"
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalize(text: str) -> str:
    """Casefold, drop accents, collapse spaces and strip punctuation at the ends."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split()).strip(_EDGE_PUNCTUATION)


def humanize(name: str) -> str:
    """``"obraSocial"`` / ``"obra_social"`` -> ``"obra social"``."""
    spaced = _CAMEL_RE.sub(" ", name).replace("_", " ").replace("-", " ")
    return " ".join(spaced.split()).lower() or name


def truncate(text: str, limit: int) -> str:
    """Cut ``text`` to ``limit`` characters, ending in "…" when cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + "…"


def fit_titles(titles: list[str], limit: int) -> list[str]:
    """Cut titles to ``limit`` characters and keep them unique (case-insensitively)."""
    out: list[str] = []
    seen: set[str] = set()
    for title in titles:
        clean = " ".join(title.split()) or "-"
        candidate = truncate(clean, limit)
        counter = 2
        while candidate.casefold() in seen:
            suffix = f" ({counter})"
            candidate = truncate(clean, limit - len(suffix)) + suffix
            counter += 1
        seen.add(candidate.casefold())
        out.append(candidate)
    return out


def fmt_number(value: Any) -> str:
    """A number as shown in Spanish: decimal comma, no ".0"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).replace(".", ",")
