"""The Spanish medical urgency detector of the guardrails floor (``domain.agents.urgency``)."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from switchboard.domain.agents.urgency import (
    CATEGORIES,
    UrgencyMatch,
    detect_urgency,
    detect_urgency_in_burst,
)
from tests.domain.agents.urgency_corpus import (
    FINAL_HELD_OUT_ROUTINE,
    FINAL_HELD_OUT_URGENT,
    HELD_OUT_ROUTINE,
    HELD_OUT_URGENT,
    ROUTINE,
    URGENT,
)

# History, not a target: each red-team round's batch scored once by the detector as it stood *before* that
# round's tuning (round, styles, urgent recalled, urgent, routine false positives, routine). The earlier
# probe batches of the first version scored 0.68-0.93 recall. Round 8 was first written as the final
# held-out batch and was demoted to a round when it exposed a bug; the last row is the final held-out
# batch, scored once after all tuning and never tuned on.
ROUND_FIGURES: list[tuple[str, str, int, int, int, int]] = [
    ("1", "voice notes, third person, Caribbean / Andean words", 38, 55, 3, 47),
    ("2", "SMS spelling, Chilean / Uruguayan / Venezuelan words", 49, 57, 2, 47),
    ("3", "rambling voice notes, no spaces, English mixing", 47, 57, 3, 47),
    ("4", "caregivers, coworkers, Spain / Mexico words, voice-to-text", 45, 57, 4, 47),
    ("5", "elderly and workplace third person, labour, burns", 47, 57, 1, 47),
    ("6", "crisis wording, self-harm in progress, service questions", 52, 57, 2, 47),
    ("7", "very short messages, Central American words, jokes", 53, 57, 2, 47),
    ("8", "mixed styles (first written as the final held-out)", 41, 42, 0, 36),
    ("final", "mixed styles, held out, never tuned on", 40, 42, 0, 36),
]


@pytest.mark.parametrize(
    ("message", "category"),
    [
        # respiratory
        ("no puedo respirar", "respiratory"),
        ("NO PUEDO RESPIRAAAR", "respiratory"),
        ("no podés respirar? mi viejo no puede respirar", "respiratory"),
        ("me falta el aire", "respiratory"),
        ("me ahogo", "respiratory"),
        ("se está ahogando con un pedazo de carne", "respiratory"),
        ("tiene los labios azules", "respiratory"),
        ("el puff no le hace nada y sigue con el pecho cerrado", "respiratory"),
        ("saturando 84 en el oxímetro", "respiratory"),
        ("no respirrar bien, no puedo respirrar", "respiratory"),
        # cardiac
        ("me duele el pecho", "cardiac"),
        ("me duele el pexho", "cardiac"),
        ("me agarró una puntada en el pecho", "cardiac"),
        ("dolor en el pecho que se va al brazo izquierdo", "cardiac"),
        ("creo que le está dando un infarto", "cardiac"),
        ("me late muy rápido el corazón y me mareo", "cardiac"),
        ("le dio un paro cardíaco", "cardiac"),
        ("me duele el pecho, vení", "cardiac"),
        # neurological
        ("se le torció la boca", "neurological"),
        ("se me durmió medio cuerpo", "neurological"),
        ("está convulsionando", "neurological"),
        ("tuvo un ataque epiléptico", "neurological"),
        ("se desmayó", "neurological"),
        ("se desmallo en la calle", "neurological"),
        ("no reacciona", "neurological"),
        ("perdió el conocimiento", "neurological"),
        ("está inconsciente", "neurological"),
        ("el peor dolor de cabeza de mi vida, estoy vomitando", "neurological"),
        ("de repente no veo de un ojo", "neurological"),
        # bleeding
        ("no para de sangrar", "bleeding"),
        ("está sangrando mucho", "bleeding"),
        ("sangrado abundante", "bleeding"),
        ("está vomitando sangre", "bleeding"),
        ("tiene una hemorragia", "bleeding"),
        ("estoy embarazada y estoy sangrando", "bleeding"),
        # suicide / self-harm
        ("me quiero matar", "suicide_self_harm"),
        ("quiero morirme", "suicide_self_harm"),
        ("no quiero vivir más", "suicide_self_harm"),
        ("me voy a suicidar", "suicide_self_harm"),
        ("estoy pensando en suicidarme", "suicide_self_harm"),
        ("me corté las venas", "suicide_self_harm"),
        ("me tomé todas las pastillas", "suicide_self_harm"),
        ("me quiero hacer daño", "suicide_self_harm"),
        ("no vale la pena vivir", "suicide_self_harm"),
        ("SOBREDOSIS", "suicide_self_harm"),
        # judgement call: suicide phrases are never discounted by a joke marker
        ("que horror la espera, me quiero matar jaja", "suicide_self_harm"),
        # imminent death
        ("se está muriendo", "imminent_death"),
        ("se muere", "imminent_death"),
        ("me estoy muriendo", "imminent_death"),
        ("me muero de dolor", "imminent_death"),
        ("se nos va", "imminent_death"),
        ("está muy grave", "imminent_death"),
        ("no tiene pulso", "imminent_death"),
        # child with a symptom
        ("mi bebé tiene fiebre de 40", "child_symptom"),
        ("el nene tiene 39 y medio", "child_symptom"),
        ("la nena está convulsionando", "child_symptom"),
        ("mi hijo de 2 años no respira", "child_symptom"),
        ("el pibe no se despierta", "child_symptom"),
        ("mi chamaco tiene calentura muy alta", "child_symptom"),
        ("el crío está muy deshidratado", "child_symptom"),
        ("la nena se tragó una pila", "child_symptom"),
        ("mi hijo se tragó una moneda", "child_symptom"),
        ("el bebé se cayó de la cama y se golpeó la cabeza", "child_symptom"),
        ("mi hija se tomó lavandina", "child_symptom"),
        ("mi beba de 20 días tiene fiebre", "child_symptom"),
        ("mi hija dice que se quiere matar", "suicide_self_harm"),  # suicide outranks child
        # explicit emergency
        ("es una emergencia", "explicit_emergency"),
        ("URGENCIA", "explicit_emergency"),
        ("es urgente, me siento muy mal", "explicit_emergency"),
        ("necesito una ambulancia", "explicit_emergency"),
        ("llamen al 911", "explicit_emergency"),
        ("llamé al 107", "explicit_emergency"),
        ("hay que llamar al SAME", "explicit_emergency"),
        ("vamos camino a la guardia", "explicit_emergency"),
        ("tuvimos un accidente con el auto", "explicit_emergency"),
        ("intoxicación con monóxido", "explicit_emergency"),
        ("reacción alérgica, se me hincha la garganta", "explicit_emergency"),
        ("anafilaxia", "explicit_emergency"),
        ("se quemó con aceite hirviendo", "explicit_emergency"),
        ("se le ve el hueso", "explicit_emergency"),
        ("ayuda por favor, se cayó y no se puede levantar", "explicit_emergency"),
        ("🚨 me duele muchísimo y estoy mareado", "explicit_emergency"),
        # regional words, text without spaces, voice-to-text errors, English mixing
        ("la señora de al lado está privada, no le sale el aire", "respiratory"),
        ("le dio un soponcio y no vuelve en sí", "neurological"),
        ("nopuedorespirar ayuda", "respiratory"),
        ("se está a hogando", "respiratory"),
        ("my dad can't breathe", "respiratory"),
        ("está botando sangre por la nariz y no para", "bleeding"),
        ("mi chamo de 3 años tiene fiebre de 40", "child_symptom"),
        ("mi hijo tiene 40 de fiebre", "child_symptom"),  # a temperature, not an adult son's age
        # indirect suicidal ideation
        ("no le veo sentido a nada, estoy pensando en hacer una locura", "suicide_self_harm"),
        ("ya no aguanto más, nadie me necesita, quiero dejar de existir", "suicide_self_harm"),
        ("me voy a aventar del puente", "suicide_self_harm"),
        # causes of an explicit emergency
        ("estoy de 36 semanas y no siento al bebé moverse", "explicit_emergency"),
        ("la estufa estuvo prendida toda la noche y estamos todos mareados", "explicit_emergency"),
        ("mi vecina mezcló cloro con detergente y está vomitando", "explicit_emergency"),
        ("mi marido me quiere matar", "explicit_emergency"),  # someone else's threat, not self-harm
    ],
)
def test_urgent_phrases(message: str, category: str) -> None:
    assert category in CATEGORIES
    match = detect_urgency(message)
    assert match is not None, message
    assert match.category == category, (message, match)
    assert match.matched


@pytest.mark.parametrize(
    "message",
    [
        "me muero de risa",
        "me muero de hambre",
        "me muero de ganas de verte",
        "me mata la espera",
        "me mata este calor",
        "me muero por un café",
        "estoy muerta de cansancio",
        "mi jefe me va a matar si llego tarde",
        "casi me muero cuando vi la factura",
        "me late que el turno era el martes",
        "hace un calor que no se puede respirar en la sala",
        "mi gato se está muriendo, ¿conocen un veterinario?",
        "la batería del celu se me muere",
        # judgement call: administrative urgency is not a medical emergency
        "urgente: necesito la factura",
        "¿tienen turno urgente para renovar el carnet?",
        "es urgente que me manden el certificado",
        "no es urgente",
        "no es una emergencia, solo quería el horario",
        "cuánto sale la consulta de urgencia?",
        # judgement call: questions about services and hours
        "¿atienden guardia los domingos?",
        "¿a qué hora abre la guardia?",
        "¿tienen servicio de urgencias?",
        "¿el plan cubre traslados en ambulancia?",
        "¿hacen electrocardiogramas?",
        "¿tienen neurólogo para epilepsia?",
        "quería pedir turno con cardiología",
        # judgement call: past / resolved symptoms and history
        "mi hija tuvo fiebre la semana pasada, ya está bien, quería control",
        "el mes pasado tuve un infarto, necesito turno con el cardiólogo",
        "mi papá tuvo un ACV hace 2 años",
        "ya se le pasó la fiebre al nene",
        # negations
        "no tiene fiebre, solo mocos",
        "no tengo dolor en el pecho, es un control",
        "no se desmayó ni nada",
        # body parts and blood in non-urgent use
        "el pecho de pollo, ¿lo puedo comer?",
        "me duelen un poco los pechos al dar la teta",
        "ya están los resultados de sangre?",
        "quiero turno para análisis de sangre",
        "la presión me dio 12/8",
        "necesito la receta de losartán",
        "mi hijo necesita el certificado para el colegio",
        "mi hijo necesita la vacuna de la fiebre amarilla",
        "¿qué hago si a mi hijo le da fiebre después de la vacuna?",
        "dolor de muelas leve",
        "quiero cancelar mi turno",
        "cuánto sale la consulta",
        # emergency numbers inside addresses
        "vivo en calle 7 y 112",
        "San Martín 1070",
        # judgement call: figurative "casi", hyperbole with "si", questions, pets, jokes about threats
        "casi me da un patatús con el precio de la resonancia",
        "casi me ahogo de la risa con el chiste del doctor",
        "me desmayo si me dicen que hay que esperar otra hora",
        "¿qué hago si mi bebé se atraganta? quiero hacer el curso de primeros auxilios",
        "¿la consulta por violencia de género es gratuita?",
        "mi perro convulsionó, ¿tienen veterinario?",
        "mi hijo me quiere matar porque lo anoté al dentista jajaja",
        "me desangro pagando la prepaga",
        "notengodolordepecho solo queria turno",
        "mi hijo se quemó con agua caliente hace 10 días y ya cicatrizó, ¿necesita control?",
    ],
)
def test_routine_phrases(message: str) -> None:
    assert detect_urgency(message) is None, (message, detect_urgency(message))


@pytest.mark.parametrize("message", [None, "", "   ", "\n\t", "😀😀😀", "🚨🆘", "👍", "...", "¿?", "🙏🏽❤️"])
def test_empty_and_emoji_only_input(message: str | None) -> None:
    assert detect_urgency(message) is None


def test_alarm_emoji_only_count_with_a_symptom() -> None:
    assert detect_urgency("🚨 hola, quería un turno") is None
    assert detect_urgency("🆘 me siento muy mal") == UrgencyMatch("explicit_emergency", "alarm emoji")


def test_the_snippet_is_normalized() -> None:
    match = detect_urgency("ME DUELE EL PÉXHO!!!")
    assert match == UrgencyMatch("cardiac", "duele el pexho")


def test_urgent_part_in_the_middle_of_a_long_message() -> None:
    message = (
        "Hola buenas tardes, cómo están? Les escribo porque tengo turno el jueves con la doctora, "
        "pero quería avisar que mi marido desde hace un rato no puede respirar bien y se le ponen los "
        "labios morados, no sé si llevarlo o esperar. También quería saber si aceptan OSDE. Gracias!!"
    )
    match = detect_urgency(message)
    assert match is not None and match.category == "respiratory"


def test_no_pathological_backtracking() -> None:
    # Long, repetitive, adversarial inputs must be handled in linear-ish time. This is not a timing
    # assertion on the machine: one call on 20k characters is far below the generous bound below
    # unless a regex backtracks catastrophically.
    inputs = [
        "me " * 5000,
        "no " * 5000 + "x",
        ("duele el " * 2000) + "brazo",
        "a" * 20000,
        "sangrando " * 2000,
        ", " * 8000,
        "mi hijo de " * 1500,
        ("dolor " * 3000) + "pecho",
        "sangra , " * 3000,  # sentence-wide co-occurrences
        "respira , " * 3000,
        "corazon " * 4000,
        "nopuedorespirar" * 1500,  # one long token without spaces
        "no me duele el pecho " * 2000,  # every match vetoed: the vetoes look at a bounded window
        "casi me ahogo " * 3000,
        "que hago si se ahoga " * 2000,
    ]
    start = time.perf_counter()
    for text in inputs:
        detect_urgency(text)
    assert time.perf_counter() - start < 20


def _figures(urgent: list[tuple[str, str]], routine: list[str]) -> tuple[float, float, float, list, list]:
    misses = [(m, c) for m, c in urgent if detect_urgency(m) is None]
    false_positives = [(m, detect_urgency(m)) for m in routine if detect_urgency(m) is not None]
    agreeing = sum(1 for m, c in urgent if (r := detect_urgency(m)) is not None and r.category == c)
    recall = 1 - len(misses) / len(urgent)
    fpr = len(false_positives) / len(routine)
    return recall, fpr, agreeing / len(urgent), misses, false_positives


def test_corpus_shape() -> None:
    per_category = Counter(category for _, category in URGENT)
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 20, per_category
    assert len(URGENT) >= 220 and len(ROUTINE) >= 220
    assert len(HELD_OUT_URGENT) >= 40 and len(HELD_OUT_ROUTINE) >= 40
    assert len(FINAL_HELD_OUT_URGENT) + len(FINAL_HELD_OUT_ROUTINE) >= 60
    assert {category for _, category in FINAL_HELD_OUT_URGENT} == set(CATEGORIES)
    assert all(category in CATEGORIES for _, category in URGENT + HELD_OUT_URGENT + FINAL_HELD_OUT_URGENT)


def test_corpus_recall_and_false_positive_rate() -> None:
    recall, fpr, agreement, misses, false_positives = _figures(URGENT, ROUTINE)
    report = (
        f"main corpus: recall {recall:.3f} ({len(URGENT) - len(misses)}/{len(URGENT)}), "
        f"false-positive rate {fpr:.3f} ({len(false_positives)}/{len(ROUTINE)}), "
        f"category agreement {agreement:.3f}; misses={misses}; false positives={false_positives}"
    )
    print(report)
    assert recall >= 0.98 and fpr <= 0.02, report


def test_held_out_recall_and_false_positive_rate() -> None:
    recall, fpr, agreement, misses, false_positives = _figures(HELD_OUT_URGENT, HELD_OUT_ROUTINE)
    report = (
        f"held-out: recall {recall:.3f} ({len(HELD_OUT_URGENT) - len(misses)}/{len(HELD_OUT_URGENT)}), "
        f"false-positive rate {fpr:.3f} ({len(false_positives)}/{len(HELD_OUT_ROUTINE)}), "
        f"category agreement {agreement:.3f}; misses={misses}; false positives={false_positives}"
    )
    print(report)
    assert recall >= 0.95 and fpr <= 0.05, report


def test_final_held_out_recall_and_false_positive_rate() -> None:
    # An honest estimate on messages the detector was never tuned on, not a tuning target: the bound is
    # loose on purpose, and a miss here is reported, not patched.
    recall, fpr, agreement, misses, false_positives = _figures(FINAL_HELD_OUT_URGENT, FINAL_HELD_OUT_ROUTINE)
    urgent, routine = len(FINAL_HELD_OUT_URGENT), len(FINAL_HELD_OUT_ROUTINE)
    report = (
        f"final held-out: recall {recall:.3f} ({urgent - len(misses)}/{urgent}), "
        f"false-positive rate {fpr:.3f} ({len(false_positives)}/{routine}), "
        f"category agreement {agreement:.3f}; misses={misses}; false positives={false_positives}"
    )
    print(report)
    assert recall >= 0.9 and fpr <= 0.05, report


def test_red_team_rounds_history() -> None:
    lines = ["red-team rounds, scored once before tuning:", "round  recall          false positives  styles"]
    for name, styles, recalled, urgent, false_positives, routine in ROUND_FIGURES:
        recall = f"{recalled / urgent:.3f} ({recalled}/{urgent})"
        fpr = f"{false_positives / routine:.3f} ({false_positives}/{routine})"
        lines.append(f"{name:<6} {recall:<15} {fpr:<16} {styles}")
    print("\n".join(lines))
    assert all(
        0 <= recalled <= urgent and 0 <= fp <= routine
        for _, _, recalled, urgent, fp, routine in ROUND_FIGURES
    )


@pytest.mark.parametrize(
    ("texts", "category"),
    [
        # Together only: the symptom is split over two messages.
        (["mi hijo", "tiene 39 de fiebre"], "child_symptom"),
        # Alone only: the pet in the first message vetoes the whole burst read together.
        (["mi gato se está muriendo", "se muere mi papá, vengan"], "imminent_death"),
        (["se muere mi papá, vengan"], "imminent_death"),
    ],
)
def test_a_burst_is_read_together_then_each_message_alone(texts: list[str], category: str) -> None:
    match = detect_urgency_in_burst(texts)
    assert match is not None and match.category == category


@pytest.mark.parametrize(
    "texts",
    [[], [""], ["hola", "¿atienden los sábados?"], ["mi gato se está muriendo", "¿tienen veterinario?"]],
)
def test_a_routine_burst_is_not_urgent(texts: list[str]) -> None:
    assert detect_urgency_in_burst(texts) is None
