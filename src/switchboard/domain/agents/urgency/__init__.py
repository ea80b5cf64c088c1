"""Spanish medical urgency detector of the agents' guardrails floor.

``detect_urgency(text)`` runs on every inbound customer message of a clinic / health business before any
model call. A match mutes the thread as a handoff to a human; ``UrgencyMatch.matched`` is the normalized
snippet recorded in the run's guardrail step. Pure: stdlib only, no I/O, no clock.

Approach
--------
1. Normalize: casefold, strip accents (NFKD), turn emoji and symbols into spaces (alarm emoji 🚨 🆘 🚑
   and an upper-case "SOS" are remembered as a hint), keep sentence punctuation as ``.`` / ``,`` tokens,
   drop decimals ("39,5" -> "39"), collapse letters repeated for emphasis ("ayudaaaa" -> "ayuda",
   "ahogoo" -> "ahogo") while keeping Spanish double letters (ll, rr, cc, ee, oo, nn) inside words, and
   expand chat abbreviations (x -> por, q/k/ke -> que, xq/pq/porq -> porque, tb/tmb -> tambien,
   d -> de, c -> se, m -> me, xfa/pls/porfa -> por favor, urg -> urgente, toy -> estoy, bb -> bebe, ...),
   join English contractions ("can't" -> "cant"), repair words split by voice-to-text ("se está a
   hogando", "con bulsiones", "in farto") and rewrite long tokens typed without spaces as the known
   phrases inside them ("nopuedorespirar" -> "no puedo respirar", "notengodolordepecho" -> "no tengo
   dolor de pecho", negation kept).
2. Match typo-tolerant, stem-based patterns (``pe(ch|x|xh)o``, ``desma(y|ll)``, ``res?pi+r+``,
   ``conv?ul[sc]``, ``intoxi[cq]``, ...), regional words (privado, patatús, soponcio, fatiga, botar
   sangre, aventarse, chamo / guagua / cipote / carajillo, ...), a few English phrases, and co-occurrences
   (a form of "sangrar" and a sign that the bleeding is heavy, "pecho" and a pain / pressure word,
   breathing and a sign of distress, despair and a word about dying, a heater and dizziness) with bounded
   word gaps (at most 20 words) that never cross a sentence end, so there is no catastrophic backtracking
   and a match stays local. The work is linear in the message length (about 0.25 ms for a typical
   message).
3. Each pattern has a strength that says what can veto it:

   - *strong*: a present-tense description of danger ("no puede respirar", "me duele el pecho",
     "no para de sangrar", "me quiero matar"): only a negation right before it vetoes it.
   - *hist*: also vetoed when the message is about the past or already resolved ("la semana pasada",
     "hace 2 años", "ya está bien", "ya se le pasó") unless it also carries an acute marker
     ("de repente", "ahora mismo", "otra vez", "hace un rato", "ayuda", "vengan", ...).
   - *weak*: keyword mentions (infarto, ACV, convulsiones, desmayo, accidente, fractura, intoxicación,
     reacción alérgica, ...) are also vetoed by an administrative / service framing (turno, receta,
     certificado, orden, obra social, prepaga, horario, precio, "atienden", "trabajan con", ...) unless an
     acute marker is present.
   - *free* ("urgente", "urgencia", "emergencia", "ambulancia" without a request verb): match unless the
     message is administrative and names no symptom at all.
   - *health* ("ayuda"/"socorro", bare "me muero", alarm emoji): match only alongside a symptom word and
     outside an administrative or past framing.

   Some patterns also carry a message-level veto (laughter "jaja" for figurative "me ahogo" / "sin aire";
   animals and objects for "se está muriendo"; "mensajes / secretaria / nadie" for "no responde"; mouth
   hygiene for "sale sangre"), a requirement (pregnancy words for any bleeding, pill words for overdose by
   quantity, a location for "voy a saltar"), or a veto on the words right before the match (a
   conditional "si / cuando" before a child's fever; "servicio de", "consulta de", "salida de" before
   "urgencia"; "puedo / hay que" before "ir a la guardia").

   Every match but self-harm is also vetoed by: "casi" right before it ("casi me da un patatús con el
   precio", "casi me ahogo de la risa"; "casi no respira" keeps its own negation); a conditional right
   after it (hyperbole: "me desmayo si me dicen que hay que esperar"); a hypothetical frame earlier in the
   sentence unless an acute marker is present ("¿qué hago si se atraganta?", "en caso de que convulsione",
   "curso de primeros auxilios"); and, for keyword and history strength, a service or topic named right
   before it ("¿la consulta por violencia de género es gratuita?", "síntomas de un ACV"). A message
   about a pet ("mi perro convulsionó, ¿tienen veterinario?") does not match unless a person is named or
   was bitten.

   A negation is ``no/ni/sin/nunca/tampoco/nada`` up to five filler words before the match inside the same
   clause ("no tengo dolor en el pecho", "no es una emergencia", "sin fiebre"); patterns that begin with
   "no" ("no puede respirar", "no reacciona") carry their own negation and are not vetoed by it.
4. Resolve the category: suicide_self_harm > child_symptom > imminent_death > cardiac > respiratory >
   neurological > bleeding > explicit_emergency. Any clinical match about a child (bebé, nene/nena, niño,
   hijo/hija, crío, chamaco, pibe, chiquito, nieto, recién nacido, ...) becomes child_symptom; child-only
   signals (fever now, lethargy, dehydration, swallowed object, fall with head hit, ingestion of medicines)
   are only looked for when a child is mentioned.

Categories
----------
respiratory, cardiac, neurological, bleeding, suicide_self_harm, imminent_death, child_symptom,
explicit_emergency (explicit urgency / emergency words, ambulance, 911 / 107 / 112 / SAME, going to or
being at the guardia, accidents, poisoning, anaphylaxis, severe burns, open fractures, falls with the
person unable to get up, bites of dangerous animals, electrocution, violence).

Judgement calls
---------------
- Administrative urgency is not a medical emergency: "urgente: necesito la factura", "¿tienen turno
  urgente para renovar el carnet?", "es urgente que me manden el certificado", "tengo una urgencia con la
  orden" do not match. "urgente" / "urgencia" / "emergencia" match when no administrative object is
  present ("urgencia por favor contesten", "EMERGENCIA") or when any symptom accompanies it ("es urgente,
  me siento muy mal"), even inside an appointment request.
- Questions about services, hours or coverage do not match: "¿atienden guardia los domingos?", "¿a qué
  hora abre la guardia?", "¿tienen servicio de urgencias?", "¿el plan cubre traslados en ambulancia?",
  "cuánto sale la consulta de urgencia", "¿hacen electrocardiogramas?", "¿tienen neurólogo para
  epilepsia?". Going to / being at the guardia now matches ("vamos camino a la guardia", "estamos en la
  guardia"); having been there ("fui a la guardia la semana pasada") does not.
- Past, resolved symptoms and medical history do not match when the message says so and nothing acute
  is added: "mi hija tuvo fiebre la semana pasada, ya está bien, quería control", "el mes pasado tuve un
  infarto", "mi papá tuvo un ACV hace 2 años", "convulsiones febriles de bebé", "después del infarto
  tiene que hacer rehabilitación", "el nene se golpeó la cabeza ayer pero está re bien, juega normal", a
  benign explanation already given ("me dijeron que el dolor de pecho era muscular / de los nervios").
  A present-tense description of danger always matches, history or not ("tuve un bypass hace años y
  ahora otra vez me duele el pecho"). Chronic, exertional breathlessness ("le falta el aire cuando sube
  la escalera, hace meses") and chronic confusion ("tiene alzheimer y a veces no me reconoce", with a
  turno request) do not match.
- Negations veto only what they negate: "no es urgente", "no tiene fiebre, solo mocos", "no tengo dolor en
  el pecho ni nada", "no se desmayó ni nada" do not match.
- Idioms do not match: "me muero de risa / de hambre / de ganas / de calor / por un café", "me mata la
  espera", "este calor me mata", "estoy muerta de cansancio", "me va a matar mi jefe", "casi me muero
  cuando vi la factura", "me late que el turno era el martes", "hace un calor que no se puede respirar",
  "me quedé sin aire de tanto subir la escalera". The literal forms match: "me estoy muriendo", "me muero
  de dolor", "se muere, por favor vengan", "siento que me muero". "me duele el corazón" is chest pain
  unless an emotional object follows ("me duele el corazón de ver..."); "me duele el alma", "se me parte
  el corazón", "me ahogo en un vaso de agua", "la tarjeta está sangrando", "me desangro pagando la
  prepaga", "qué infarto de buena la doctora jaja" never match.
- Suicide and self-harm phrases are never discounted by joke markers ("jaja"): a false handoff costs less
  than a missed one. Self-harm needs intent ("me corto los brazos", "a propósito"); "me corté con un
  vidrio" is a wound (bleeding only if heavy). Overdose by quantity ("me tomé todas las pastillas", "un
  blíster entero") is suicide_self_harm for an adult and child_symptom for a child; "todas las pastillas
  del tratamiento" is not an overdose.
- Animals and things dying are not a medical emergency for the clinic: "mi gato se está muriendo", "se
  me muere la batería", "se están muriendo las plantas".
- A child with a current fever matches even when the parent only asks for an appointment (the spec lists
  child + fever); mild child complaints (tos, mocos, piojos, varicela ya vista, erupción sin fiebre, una
  caída con raspón) and fever mentioned hypothetically ("¿qué hago si le da fiebre?") or as a vaccine
  ("fiebre amarilla") do not. "hijo/hija de N años" with N >= 18, or a daughter in a pregnancy message, is
  an adult.
- "me siento muy mal" / "me siento bien mal" alone does not match; it is symptom context that makes
  "urgente", "ayuda" or an alarm emoji match. Alarm emoji alone never match.
- Labour (contracciones seguidas, "rompí bolsa") and hypertensive / glycaemic crises (presión 20+,
  glucosa 35 or 600) are explicit_emergency; severe pain alone matches only with a sign that it is
  acute ("no aguanto", vomiting, fainting, bleeding, fever, can't move).
- A pet's playful bite ("mi perro me mordió suave jugando") does not match; a dog attack or a bite by a
  viper / scorpion / spider does.
- Emergency numbers: "911" on its own matches; "107", "112", "SAME" need a call verb ("llamé al 107")
  because they are also street and house numbers ("calle 7 y 112", "San Martín 1070").
- A question asking whether or how to go to the guardia with an administrative object ("¿puedo ir a la
  guardia con la orden vieja?") does not match; being on the way ("estoy yendo a la guardia con mi hija")
  does.
- Known limit: a symptom denied only after a question mark ("mi hijo tiene fiebre? no, solo quería el
  certificado") still matches: recall is preferred.
- Regional words for a collapse ("le dio un patatús / soponcio / yeyo / telele", "está privado") have
  keyword strength: they are also figurative. "Fatiga" is breathlessness only next to an air / chest word.
- Indirect suicidal ideation matches: "hacer una locura", "hacerme algo", "quiero desaparecer / irme /
  dormirme para siempre", a farewell ("me despido de todos", "carta de despedida", "no me van a ver
  más"), preparations ("tengo la soga lista", "juntando pastillas"), a burden ("no voy a molestar más"),
  and any word about dying or ceasing to exist in a message of despair ("no aguanto más", "nadie me
  necesita", "ya no me importa nada"). "me quiere matar" is someone else's threat (violence, explicit
  emergency), not self-harm; "mi hijo me quiere matar ... jaja" is a joke.
- Obstetric warning signs are explicit_emergency: no fetal movement, waters breaking, labour ("está de
  parto", "se ve la cabeza"), pre-eclampsia signs; "el bebé" of a pregnancy message is the fetus, not a
  child. Bleeding in pregnancy stays bleeding.
- Causes with their symptoms are explicit_emergency: a heater / gas leak with dizziness, headache or
  vomiting (carbon monoxide), mixing or breathing cleaning products, wild mushrooms, heat with confusion
  or fainting, something in the eye, domestic violence ("me pegó", "me está golpeando", threatened with a
  knife), high fever (39+) in the elderly, burns with large blisters (not sunburn). A dog bite is
  keyword strength: "¿atienden mordeduras de perro?" and a bite last week do not match.
- "mi hijo tiene 40 (de fiebre)" is a temperature, not the age of an adult son; 101-106 are Fahrenheit
  fevers in a child.
- A wound or burn already healed ("ya cicatrizó", "ya se curó") is past, like "ya está bien".
- "me duelen los pechos" (breastfeeding) is not chest pain; "pecho de pollo", "aumento de pecho",
  "análisis / resultados de sangre", "donar sangre", "sangre fría", "la presión 13/8", "receta" never
  match by themselves.

Layout
------
``normalize`` (tokens, accents, repeated letters, abbreviations, emoji, voice-to-text repairs),
``compact`` (text typed without spaces), ``patterns`` (category names, gap macros, the rule record),
``lexicon`` (acute markers, symptom words, children, the elderly, pregnancy, pills, toxic products),
``negatives`` (negation, past / resolved, administrative and service framing, hypotheticals, "casi",
jokes, pets), one module of rules per category group (``self_harm``, ``children``, ``imminent_death``,
``respiratory_cardiac``, ``neuro_bleeding``, ``emergency``, ``exposures`` for emergencies by cause,
``spanglish`` for English phrases) and ``detector`` (strengths, vetoes, precedence and
``detect_urgency``).
"""

from __future__ import annotations

from switchboard.domain.agents.urgency.burst import assess_urgency_in_burst, detect_urgency_in_burst
from switchboard.domain.agents.urgency.classifier import UrgencyModel
from switchboard.domain.agents.urgency.detector import UrgencyMatch, detect_urgency
from switchboard.domain.agents.urgency.layered import UrgencyVerdict, assess_urgency
from switchboard.domain.agents.urgency.patterns import CATEGORIES

__all__ = [
    "CATEGORIES",
    "UrgencyMatch",
    "UrgencyModel",
    "UrgencyVerdict",
    "assess_urgency",
    "assess_urgency_in_burst",
    "detect_urgency",
    "detect_urgency_in_burst",
]
