"""Normalization of a customer message into space-separated ASCII tokens.

Casefold, strip accents, emoji and symbols become spaces (alarm emoji and an upper-case "SOS" are
remembered as a hint), sentence punctuation becomes ``.`` / ``,`` tokens, decimals are dropped, letters
repeated for emphasis are collapsed and chat abbreviations are expanded.
"""

from __future__ import annotations

import re
import unicodedata

_ALARM_EMOJI = ("\U0001f6a8", "\U0001f198", "\U0001f691")  # 🚨 🆘 🚑

_ABBREVIATIONS = {
    "x": "por",
    "q": "que",
    "k": "que",
    "ke": "que",
    "qe": "que",
    "xq": "porque",
    "xk": "porque",
    "pq": "porque",
    "pk": "porque",
    "porq": "porque",
    "tb": "tambien",
    "tmb": "tambien",
    "tbn": "tambien",
    "tmbn": "tambien",
    "d": "de",
    "dl": "del",
    "c": "se",
    "m": "me",
    "t": "te",
    "urg": "urgente",
    "urgt": "urgente",
    "emerg": "emergencia",
    "xfa": "por favor",
    "xfavor": "por favor",
    "xfis": "por favor",
    "porfa": "por favor",
    "porfis": "por favor",
    "porfavor": "por favor",
    "pls": "por favor",
    "plis": "por favor",
    "plz": "por favor",
    "pf": "por favor",
    "toy": "estoy",
    "stoy": "estoy",
    "sta": "esta",
    "ta": "esta",
    "tngo": "tengo",
    "kiero": "quiero",
    "qiero": "quiero",
    "kiere": "quiere",
    "qiere": "quiere",
    "bb": "bebe",
    "bebote": "bebe",
    "hno": "hermano",
    "hna": "hermana",
    "xa": "para",
    "pa": "para",
    "nd": "nada",
    "bn": "bien",
    "ns": "no se",
    "nose": "no se",
    "yamen": "llamen",
    "yame": "llame",
    "yamar": "llamar",
    "yamo": "llamo",
    "aiuda": "ayuda",
    "cabesa": "cabeza",
    "corason": "corazon",
    "derrepente": "de repente",
    "derepente": "de repente",
}

# Letters that are doubled legitimately inside Spanish words (llamar, carro, acción, leer, cooperar,
# innato); any other doubled letter, and any letter repeated three times or more, is emphasis.
_KEEP_DOUBLE = "celnor"


def _squeeze(match: re.Match[str]) -> str:
    letter = match.group(1)
    return letter * 2 if letter in "lr" else letter


def _undouble(match: re.Match[str]) -> str:
    return match.group(0) if match.group(1) in _KEEP_DOUBLE else match.group(1)


# Words split or misspelt by voice-to-text ("se está a hogando", "con bulsiones", "in farto").
_VOICE_REPAIRS = (
    (re.compile(r"\b(?:con|com) ?[bv]ul([sc])"), r"convul\1"),
    (re.compile(r"\bbul([sc])ion"), r"convul\1ion"),
    (re.compile(r"\ba (hog(?:o|a|as|an|ando|andose|ado|ada|aba|arse|arme)\b)"), r"a\1"),
    (re.compile(r"\bin (fart[a-z]*)"), r"in\1"),
    (re.compile(r"\bres (pir[a-z]*)"), r"res\1"),
    (re.compile(r"\bsan (gr(?:ando|ado|e|a|o)\b)"), r"san\1"),
    (re.compile(r"\bhemo (rr?agia)"), r"hemo\1"),
)


def normalize(text: str) -> tuple[str, bool]:
    """The text as a string of space-separated tokens; and whether it carried an alarm hint."""
    alarm = any(e in text for e in _ALARM_EMOJI) or bool(
        re.search(r"(?<![A-Za-z])SOS(?![A-Za-z])", text) and not re.search(r"\bVOS\s+SOS\b", text)
    )
    s = unicodedata.normalize("NFKD", text.casefold())
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"(\d+)[.,]\d+", r"\1", s)
    s = re.sub(r"([a-z])['’`´]([a-z])", r"\1\2", s)  # "can't" -> "cant", not "can t" (t -> te)
    s = re.sub(r"[!?¡¿.;:…\n\r\t]+", " . ", s)
    s = re.sub(r",+", " , ", s)
    s = re.sub(r"[^a-z0-9.,]+", " ", s)
    s = " ".join(_ABBREVIATIONS.get(tok, tok) for tok in s.split())
    s = re.sub(r"([a-z])\1{2,}", _squeeze, s)
    s = re.sub(r"([a-df-z])\1\b", r"\1", s)  # word-final doubles ("ahogoo", "muyy"); keep "cree", "lee"
    s = re.sub(r"([a-z])\1(?=[a-z])", _undouble, s)
    for pattern, replacement in _VOICE_REPAIRS:
        s = pattern.sub(replacement, s)
    tokens = [_ABBREVIATIONS.get(tok, tok) for tok in s.split()]
    return " ".join(tokens), alarm
