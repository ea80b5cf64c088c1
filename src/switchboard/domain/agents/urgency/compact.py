"""Messages typed without spaces ("nopuedorespirar", "mihijotienefiebre", "necesitoturnoparamañana").

A long token is rewritten as the known phrases found inside it, in order: the danger phrases the rules
look for, plus the negations, subjects and administrative words that can veto them, so
"notengodolordepecho" becomes "no tengo dolor de pecho" (negated) and "necesitoturnourgente" becomes
"turno urgente" (administrative). Unknown stretches are dropped; a token
is only rewritten when the phrases found cover at least half of it and hold two words or more, so a real
long word ("sinceramente", "electrocardiograma") stays as it is. Linear: one ``str.find`` scan per phrase.
"""

from __future__ import annotations

_MIN_LENGTH = 12

_PHRASES = (
    # negations and framing that veto
    "no tengo",
    "no tiene",
    "no es",
    "no hay",
    "no se",
    "sin",
    "nada",
    "ayer",
    "la semana pasada",
    "hace",
    "ya esta bien",
    "jaja",
    # administrative words
    "turno",
    "cita",
    "receta",
    "certificado",
    "factura",
    "horario",
    "precio",
    "cuanto sale",
    "cuanto cuesta",
    "obra social",
    "consulta",
    "control",
    "resultados",
    "atienden",
    # subjects
    "mi hijo",
    "mi hija",
    "el bebe",
    "mi bebe",
    "el nene",
    "la nena",
    "el nino",
    "la nina",
    "mi papa",
    "mi mama",
    "mi abuelo",
    "mi abuela",
    "mi esposo",
    "mi esposa",
    "embarazada",
    # danger phrases
    "no puedo respirar",
    "no puede respirar",
    "no respira",
    "me ahogo",
    "se ahoga",
    "se esta ahogando",
    "me estoy ahogando",
    "me falta el aire",
    "le falta el aire",
    "falta de aire",
    "labios morados",
    "me duele el pecho",
    "le duele el pecho",
    "dolor de pecho",
    "dolor en el pecho",
    "presion en el pecho",
    "infarto",
    "no reacciona",
    "no responde",
    "no despierta",
    "se desmayo",
    "me desmaye",
    "desmayado",
    "desmayada",
    "inconsciente",
    "convulsionando",
    "convulsiona",
    "convulsiones",
    "la boca torcida",
    "no puede hablar",
    "esta sangrando",
    "estoy sangrando",
    "no para de sangrar",
    "mucha sangre",
    "sangra mucho",
    "hemorragia",
    "me quiero matar",
    "se quiere matar",
    "me voy a matar",
    "me quiero morir",
    "quiero morirme",
    "no quiero vivir",
    "suicidarme",
    "suicidio",
    "me corte las venas",
    "se esta muriendo",
    "me estoy muriendo",
    "se muere",
    "no tiene pulso",
    "tiene fiebre",
    "fiebre alta",
    "se trago",
    "se cayo",
    "se golpeo la cabeza",
    "emergencia",
    "urgencia",
    "urgente",
    "ambulancia",
    "ayuda",
    "auxilio",
    "socorro",
    "accidente",
    "intoxicado",
    "intoxicada",
    "muy mal",
)
_COMPACT = sorted(((p.replace(" ", ""), p) for p in _PHRASES), key=lambda pair: -len(pair[0]))


def _split(token: str) -> str:
    taken = bytearray(len(token))
    found: list[tuple[int, str]] = []
    for compact, phrase in _COMPACT:
        start = token.find(compact)
        while start != -1:
            end = start + len(compact)
            if not any(taken[start:end]):
                taken[start:end] = b"\x01" * (end - start)
                found.append((start, phrase))
            start = token.find(compact, end)
    phrases = [phrase for _, phrase in sorted(found)]
    words = sum(len(phrase.split()) for phrase in phrases)
    # A real long word ("sinceramente", "electrocardiograma") holds at most a short piece of a phrase.
    if words < 2 or 2 * sum(taken) < len(token):
        return token
    return " ".join(phrases)


def expand_compact(norm: str) -> str:
    """``norm`` with every long space-less token replaced by the known phrases inside it."""
    if not any(len(token) >= _MIN_LENGTH for token in norm.split()):
        return norm
    return " ".join(_split(t) if len(t) >= _MIN_LENGTH and t.isalpha() else t for t in norm.split())
