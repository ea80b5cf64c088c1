"""Which of the detector's languages a message is written in: Spanish, English or Brazilian Portuguese.

Counted from short function words and the commonest words of a clinic's messages, which the three
languages spell apart ("que" is shared, so it counts for none; "não", "você", "tá", "peito" and "the",
"my", "pain" are not), with half a point for each letter or ending only one of them writes ("ñ", "ç",
"ão", "n't"). A message with none of them is Spanish, the clinics' language.
Pure: stdlib only.
"""

from __future__ import annotations

from switchboard.domain.agents.urgency.features import fold

SPANISH = "es"
ENGLISH = "en"
PORTUGUESE = "pt"
LANGUAGES = (SPANISH, ENGLISH, PORTUGUESE)

_WORDS: dict[str, frozenset[str]] = {
    SPANISH: frozenset(
        "el la los las del y pero por para con sin es esta estoy tiene tengo mi mis muy hay ya"
        " hola gracias ayuda puede no usted ustedes le lo se esto eso ahora aire pecho dolor"
        " hijo hija mama papa abuelo abuela necesito quiero favor porfa buenas tardes noches"
        " manana hoy ayer cuando donde como hace sangre fiebre tambien".split()
    ),
    ENGLISH: frozenset(
        "the an and but for with without is are am was my i you your he she it his her"
        " have has can cant not dont help please pls hi hello thanks thank u now this that what"
        " pain chest breath breathing bleeding fever son daughter wife husband mom dad baby"
        " just feel feeling yesterday today tomorrow late ok do does any someone asap call"
        " there here after before since of in on at".split()
    ),
    PORTUGUESE: frozenset(
        "o os as do da dos das e mas pra para com sem esta estou ta to tem tenho meu minha muito"
        " mt nao voce vc vcs ele ela isso agora obrigado obrigada brigado brigadao oi ajuda pode"
        " um uma ar peito dor filho filha mae pai avo eu hoje amanha ontem tava ai aqui pfv"
        " sangue febre tambem tb atendem exame resultado remedio em quero preciso consigo tudo ja"
        " deu falou onde marido esposa morrer socorro".split()
    ),
}
# Letters and endings one language writes and the others do not (read before accents are folded).
_MARKS: dict[str, tuple[str, ...]] = {
    SPANISH: ("ñ", "¿", "¡", "ción", "ll"),
    ENGLISH: ("'s", "'m", "n't", "th", "w"),
    PORTUGUESE: ("ã", "õ", "ç", "ção", "ões", "nh", "lh"),
}


def detect_language(text: str) -> str:
    """``es``, ``en`` or ``pt``: the language whose function words the message uses most."""
    words = fold(text).split()
    lowered = text.casefold()
    counts = {
        lang: sum(w in vocabulary for w in words) + 0.5 * sum(mark in lowered for mark in _MARKS[lang])
        for lang, vocabulary in _WORDS.items()
    }
    best = max(counts, key=lambda lang: (counts[lang], lang == SPANISH))
    return best if counts[best] else SPANISH
