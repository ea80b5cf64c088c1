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
   d -> de, c -> se, m -> me, xfa/pls/porfa -> por favor, urg -> urgente, toy -> estoy, bb -> bebe, ...).
2. Match typo-tolerant, stem-based patterns (``pe(ch|x|xh)o``, ``desma(y|ll)``, ``res?pi+r+``,
   ``conv?ul[sc]``, ``intoxi[cq]``, ...) and co-occurrences (a form of "sangrar" within a few words of an
   intensity word, "pecho" near a pain / pressure word) with bounded word gaps that never cross a
   sentence end, so there is no catastrophic backtracking and a match stays local. The work is linear in
   the message length (about 0.1 ms for a typical message).
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
  de dolor", "se muere, por favor vengan", "siento que me muero".
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
- "me duelen los pechos" (breastfeeding) is not chest pain; "pecho de pollo", "aumento de pecho",
  "análisis / resultados de sangre", "donar sangre", "sangre fría", "la presión 13/8", "receta" never
  match by themselves.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

CATEGORIES = (
    "respiratory",
    "cardiac",
    "neurological",
    "bleeding",
    "suicide_self_harm",
    "imminent_death",
    "child_symptom",
    "explicit_emergency",
)


@dataclass(frozen=True)
class UrgencyMatch:
    """A detected medical urgency: its category and the normalized snippet that matched."""

    category: str
    matched: str


# --------------------------------------------------------------------------- normalization

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


def _normalize(text: str) -> tuple[str, bool]:
    """The text as a string of space-separated tokens; and whether it carried an alarm hint."""
    alarm = any(e in text for e in _ALARM_EMOJI) or bool(
        re.search(r"(?<![A-Za-z])SOS(?![A-Za-z])", text) and not re.search(r"\bVOS\s+SOS\b", text)
    )
    s = unicodedata.normalize("NFKD", text.casefold())
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = re.sub(r"(\d+)[.,]\d+", r"\1", s)
    s = re.sub(r"[!?¡¿.;:…\n\r\t]+", " . ", s)
    s = re.sub(r",+", " , ", s)
    s = re.sub(r"[^a-z0-9.,]+", " ", s)
    s = re.sub(r"([a-z])\1{2,}", _squeeze, s)
    s = re.sub(r"([a-df-z])\1\b", r"\1", s)  # word-final doubles ("ahogoo", "muyy"); keep "cree", "lee"
    s = re.sub(r"([a-z])\1(?=[a-z])", _undouble, s)
    tokens = [_ABBREVIATIONS.get(tok, tok) for tok in s.split()]
    return " ".join(tokens), alarm


# --------------------------------------------------------------------------- pattern building blocks

_MACROS = {
    "<g1>": r"(?: [a-z0-9]+)?? ",
    "<g2>": r"(?: [a-z0-9]+){0,2}? ",
    "<g3>": r"(?: [a-z0-9]+){0,3}? ",
    "<g4>": r"(?: [a-z0-9]+){0,4}? ",
    "<g5>": r"(?: [a-z0-9]+){0,5}? ",
    "<c5>": r"(?: (?:[a-z0-9]+|,)){0,5}? ",
    "<pecho>": r"(?:pe(?:ch|xh|x|sh|cj)o|torax)",
    "<respir>": r"(?:res?pi+r+[a-z]*|respri[a-z]*)",
    "<idiom>": r"(?! (?:(?:de|del) (?!dolor\b|verdad\b|un\b|una\b)|por (?!favor\b|fa\b)))",
}


def _re(*alternatives: str) -> re.Pattern[str]:
    source = "|".join(f"(?:{alt})" for alt in alternatives)
    for macro, expansion in _MACROS.items():
        source = source.replace(macro, expansion)
    return re.compile(source)


def _rx(source: str) -> re.Pattern[str]:
    return _re(source)


_NEGATORS = frozenset({"no", "ni", "sin", "nunca", "tampoco", "nada", "jamas"})
_FILLERS = frozenset(
    "tengo tiene tienen tenia tuvo tuve tenemos hay habia hubo es era fue sea son le me se te lo la los las "
    "el un una unos unas mas muy mucho mucha tanto tanta tan ya esta estoy estaba estamos estan siente "
    "siento sentia senti presenta presento noto note nota creo que parece parecia con de del al a nos "
    "les ningun ninguna ha he han hemos tenido sido habido sentido estado realmente gran "
    "parecio ningun nunca aun todavia".split()
)
_CLAUSE_BREAKS = frozenset({".", ",", "pero", "aunque", "sino", "y", "o"})

_PAST = _rx(
    r"\bhace (?:\d+|un|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|unos|unas|varios|varias|"
    r"muchos|muchas|algunos|algunas|un par de|mas de un|mas de una) (?:semanas?|mes|meses|anos?)\b"
    r"(?! (?:que|ya que)\b)"
    r"|\b(?:la|de la) semana pasada\b|\b(?:el|del) (?:mes|ano) pasado\b|\bel otro dia\b|\bhace tiempo\b"
    r"|\ben (?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|"
    r"noviembre|diciembre)\b|\ben (?:el )?(?:19|20)\d\d\b"
    r"|\bde (?:bebe|chic[oa]|chiquit[oa]|nin[oa]|joven|pequen[oa]|adolescente)\b|\bantecedentes?\b"
    r"|\bestuvo internad[oa]\b|\bdespues (?:del|de la|de su|de mi) (?:infarto|acv|accidente|convulsion"
    r"|desmayo|"
    r"episodio|ataque|fractura|internacion)\b|\b(?:le|me|nos|les) dieron el alta\b"
    r"|\bya (?:esta|estoy|estamos|estan|se siente|me siento|anda|se encuentra|quedo)(?: [a-z]+)? "
    r"(?:bien|mejor|perfect[a-z]*|recuperad[a-z]*|joya|tranquil[a-z]*|de alta)\b"
    r"|\bya (?:se le|se me|me|le|nos|se|les) (?:paso|bajo|fue|corto|calmo|detuvo|freno|quito|normalizo)\b"
    r"|\bya paso\b|\bse recupero\b|\bquedo bien\b|\bsalio todo bien\b|\btodos bien\b|\bestamos bien\b"
    r"|\bnada grave\b|\bfue leve\b|\b(?:era|fue|eran) (?:de los nervios|muscular|ansiedad|un gas|gases|estres"
    r"|"
    r"psicologico|nervios|contractura|reflujo)\b|\bpero (?:ya )?(?:esta|estoy|anda|sigue) (?:re |muy |super "
    r"|perfectamente )?bien\b"
    r"|\b(?:esta|anda) (?:re|muy|super) bien\b|\b(?:juega|jugando|come) (?:normal|bien)\b|\bya no (?:tiene"
    r"|tengo|le|me|hay)\b|\besta jugando\b"
)

_NOW = _rx(
    r"\b(?:ahora mismo|en este momento|ya mismo|ahorita|recien|de repente|de golpe|hace un rato|"
    r"hace un ratito|hace (?:\d+|unos|un par de|media|una|pocos) (?:minutos?|min|horas?|hora)|otra vez|"
    r"de nuevo|nuevamente|ayuda|ayudenme|ayudame|socorro|auxilio|vengan|veni|vente|rapido|anoche|"
    r"esta manana|esta teniendo|estan teniendo|le esta dando|me esta dando|se esta poniendo)\b"
)

_ADMIN = _rx(
    r"\b(?:turnos?|citas?|recetas?|certificados?|orden(?:es)?|facturas?|autorizacion[a-z]*|"
    r"presupuestos?|reintegros?|formularios?|carnet|control(?:es)?|chequeo|apto|resultados?|informes?|"
    r"historia clinica|obra social|prepaga|art|horarios?|abre|abren|cierra|cierran|atiende|atienden|"
    r"cuanto (?:sale|cuesta|es|cobran|tarda)|precios?|cubre|cobertura|plan|trabajan con|cobr[a-z]+|pago|"
    r"pague|pagar|plata|tramites?|banco|reunion|copia|mail|estudios?|traslados?|programad[oa]s?|vacunas?"
    r"|revision|medicacion|yeso|"
    r"oculista|oftalmolog[a-z]*|anteojos|lentes|kinesiolog[a-z]*|seguro|trabajo|rehabilitacion|hacen"
    r"|realizan)\b"
)

_HEALTH = _rx(
    r"\b(?:dolor[a-z]*|duel[ea][a-z]*|fiebre|calentura|sangr[a-z]*|<respir>|aire|<pecho>|de[sz]?ma(?:y|ll"
    r"|i)[a-z]*|"
    r"vomit[a-z]*|cayo|caida|golpe[a-z]*|herid[a-z]*|accidente|mordi[a-z]*|quem[a-z]*|hinch[a-z]*|"
    r"alergi[a-z]*|conv?ul[sc][a-z]*|reacciona|inconscient[a-z]*|marea[a-z]*|mareo|fatal|grave|muriendo|"
    r"ahog[a-z]*|infart[a-z]*|acv|palid[oa]|morad[oa]|temblando|herida|fractur[a-z]*|quebr[a-z]*|"
    r"intoxi[cq][a-z]*|envenen[a-z]*|hemorr?agi[a-z]*|convulsion[a-z]*|asma|desvaneci[a-z]*|"
    r"embarazad[a-z]*|parto|contracciones|presion en)\b"
    r"|\b(?:muy|re|bien|super|tan|demasiado|mega|pesimo|horrible|malisimo) mal\b|\bmalisim[oa]\b"
    r"|\bno (?:puede|puedo|pudo) (?:moverse|levantarse|caminar|hablar|respirar|pararse)\b"
)

_PETS = (
    r"\b(?:perr[a-z]*|gat[oa]s?|gatit[a-z]*|mascota[a-z]*|veterinari[a-z]*|cachorr[a-z]*|loro|pajar[a-z]*|"
    r"pez|peces|conejo|hamster|tortuga|caballo)\b"
)
_NONHUMAN = _rx(
    _PETS + r"|\b(?:planta[a-z]*|flor(?:es)?|bateria|celu[a-z]*|telefono|wifi|internet|compu[a-z]*|"
    r"notebook|pantalla|luz|vela|fuego|motor|senal|auto|coche|carro)\b"
)
_COMMUNICATION = _rx(
    r"\b(?:mail|mails|mensajes?|telefono|whatsapp|wsp|escribo|escribi|escribiendo|secretaria|recepcion|"
    r"nadie|consultorio|llamadas|correo|el numero|linea|sistema|pagina|web|app)\b"
)
_HUMOR = _rx(r"\b(?:ja|je|ji)(?:ja|je|ji)+\b|\bjaj\b|\bjsjs[a-z]*|\blol\b|\bxd\b")
_CHILD = _rx(
    r"\b(?:bebe|bebes|bebit[oa]s?|beba|bebas|nen[ea]s?|nenit[oa]s?|nin[oa]s?|ninit[oa]s?|hij[oa]s?|"
    r"hijit[oa]s?|crios?|crias?|chamac[oa]s?|chamaquit[oa]s?|pibes?|pibas?|pibit[oa]s?|chiquit[oa]s?|"
    r"chiquilin[a-z]*|pequen[oa]|peque|guagua|recien nacid[oa]s?|lactante|criatura|niet[oa]s?|"
    r"nietit[oa]s?|sobrinit[oa]s?|escuincle|morrit[oa]s?|chavit[oa]s?|mij[oa]|chaval[a-z]*|chiquill[oa]s?|"
    r"huerquit[oa]s?|guris?|gurisa|gurisit[oa]s?|chilpayate|bebecit[oa])\b"
)
_ADULT_CHILD = re.compile(r"\bhij[oa]s?(?: [a-z]+)?(?: de| tiene)? (\d+)(?: anos)?\b")
_PREGNANCY = _rx(
    r"\bembara[zs][a-z]*|\bsemanas de (?:embarazo|gestacion)|\bestoy de \d+ (?:semanas|meses)\b"
    r"|\b(?:en la|de) semana \d+\b|\bsemana \d+ de\b"
    r"|\bgestacion\b|\bgestante\b"
)
_NEWBORN = _rx(
    r"\b(?:de|tiene|con|nacio hace) (?:\d+|un|una|dos|tres|cuatro|cinco|seis) (?:dias|semanas)\b"
    r"|\brecien nacid[oa]"
    r"|\b(?:de|tiene) (?:1|un) mes\b"
)


# --------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Rule:
    category: str
    kind: str  # strong | hist | weak | free | health
    pattern: re.Pattern[str]
    child_only: bool = False
    unless: re.Pattern[str] | None = None  # vetoes the rule when found anywhere in the message
    requires: re.Pattern[str] | None = None  # the rule needs this somewhere in the message
    before_veto: re.Pattern[str] | None = None  # vetoes a match whose preceding text ends with this


def _rule(category: str, kind: str, *alternatives: str, **options: object) -> _Rule:
    return _Rule(category, kind, _re(*alternatives), **options)  # type: ignore[arg-type]


_R, _C, _N, _B = "respiratory", "cardiac", "neurological", "bleeding"
_S, _D, _K, _E = "suicide_self_harm", "imminent_death", "child_symptom", "explicit_emergency"
_OVERDOSE, _POISON = "overdose", "poison"  # resolved to a public category by who it happened to

_PILLS = _rx(
    r"\b(?:pastill[a-z]*|pildor[a-z]*|comprimid[a-z]*|capsul[a-z]*|remedio[a-z]*|medicament[a-z]*|blister|"
    r"frasco|clonazepam|rivotril|alplax|alprazolam|paracetamol|ibuprofeno|tafirol|aspirina[a-z]*|"
    r"diazepam|lorazepam|insulina|jarabe|antidepresiv[a-z]*|somnifer[a-z]*|pastis|ansioliti[a-z]*)\b"
)
_TOXIC = (
    r"(?:lavandina|cloro|lejia|detergente|veneno|raticida|insecticida|matarratas|mata ratas|kerosen[a-z]*|"
    r"nafta|gasolina|thinner|aguarras|soda caustica|destapa[a-z]*|limpiador[a-z]*|acido|anticongelante|"
    r"suavizante|amoniaco|plaguicida|herbicida|fertilizante|pinesol|desinfectante|naftalina|soda|"
    r"quitaesmalte|acetona|lejia)"
)

_RULES: tuple[_Rule, ...] = (
    # ----------------------------------------------------------------- suicide / self-harm
    _rule(_S, "strong", r"\bsuicid[a-z]*", unless=_rx(r"\bprevencion del suicidio|\bcharlas?\b|\btaller")),
    _rule(
        _S,
        "strong",
        r"\b(?:me|se) (?:quiero|quiere|quiera|quisiera|queria|pienso|piensa|penso|intente|intento|trate de|"
        r"trato de|quise|quiso|deseo|desea|tengo ganas de|dan ganas de) (?:matar|suicidar|ahorcar|colgar|"
        r"envenenar|lastimar|quitar la vida|hacer dano|hacer mal|morir)\b<idiom>",
        r"\b(?:me (?:voy a|iba a)|se (?:va a|iba a)|te (?:vas a|ibas a)) (?:matar|suicidar|ahorcar|colgar|"
        r"envenenar|quitar la vida|hacer dano)\b(?! (?:de|con|estudiando|trabajando|laburando|haciendo"
        r"|por)\b)",
        r"\b(?:me|se) (?:quiero|quiere|voy a|va a|vuelvo a|volvio a) cortar\b"
        r"(?! (?:el|la|los|las|mi|su) (?:pelo|unas|cabello|flequillo|barba|pelito|puntas|dedo))",
        r"\b(?:quiero|quiere|queria|quisiera|ganas de|pensando en|pienso en|piensa en|pensaba en|intento|"
        r"intente|planeo|voy a|va a|decidi|deseo|para|de|amenaza con|amenazo con|amenazando con|habla de|"
        r"hablando de|dice que va a|dijo que va a) (?:matarme|matarse|suicidarme|suicidarse|"
        r"ahorcarme|ahorcarse|colgarme|colgarse|envenenarme|envenenarse|lastimarme|hacerme dano|"
        r"hacerse dano|quitarme la vida|quitarse la vida|dejar de vivir|dejar de existir|no despertar|"
        r"no despertarme|acabar con mi vida|terminar con mi vida|acabar con su vida|terminar con su vida)\b",
        r"\b(?:quiero|quiere|queria|quisiera|ganas de|pensando en|pienso en) (?:morirme|morirse"
        r"|morir)\b<idiom>",
        r"\b(?:quiero|quiere|voy a|va a|pienso) (?:tirarme|tirarse)\b(?! a (?:dormir|descansar)| en "
        r"| un rato)",
        r"\btirar(?:me|se) (?:del|de un|de una|de la|por la|por el|bajo|debajo|al tren|a las vias|desde)\b",
        r"\b(?:me|se) (?:voy a|va a) tirar (?:del|de un|de una|de la|por la|por el|bajo|debajo|al tren|"
        r"a las vias|desde)\b",
        r"\b(?:hoy|ahora|ya|esta noche|manana) me mato\b|\bme mato (?:hoy|ahora|ya|esta noche)\b",
        r"\bno (?:me )?quiero (?:vivir|seguir viviendo|existir|despertar(?:me)?|estar (?:mas )?viv[oa])\b",
        r"\bno quiero seguir\b(?= ?(?:$|\.|,|asi\b|mas\b|viviendo|en este mundo|aca\b))",
        r"\bno (?:le )?(?:veo|encuentro|tiene|tengo) (?:sentido|razon[a-z]*|motivos?)<g2>(?:vivir|seguir|"
        r"la vida|mi vida|seguir viviendo|estar vivo|estar viva)\b",
        r"\b(?:la vida|mi vida|vivir) no tiene (?:sentido|razon de ser)\b|\b(?:me quiero|quisiera"
        r"|quiero) ir(?:me)? "
        r"para siempre\b|\bdormir(?:me)? y no despertar|\bno despertar(?:me)? (?:nunca )?mas\b",
        r"\bno quiero estar (?:mas )?(?:en este mundo|viv[oa]|aca)\b|\b(?:mejor|preferiria|prefiero|quisiera"
        r"|deseo|"
        r"ojala)<g2>morir(?:me|se)?\b<idiom>",
        r"\b(?:si|hoy|ya|ahora|que|manana|esta noche|y|asi que|mejor) me mato\b"
        r"(?! (?:trabajando|estudiando|laburando|corriendo|de|con|por|en el))",
        r"\bme (?:colgaria|ahorcaria|mataria|suicidaria|tiraria)\b|\b(?:colgarme|ahorcarme|colgarse"
        r"|ahorcarse)\b"
        r"|\bir(?:me)? de este mundo\b",
        r"\b(?:tomarme|tomarse|tragarme|tragarse)<g1>(?:todas|todo|un frasco|una caja|la caja|el frasco|"
        r"el blister|un blister|muchas)\b",
        r"\bno (?:puedo|aguanto) mas con mi vida\b|\bquiero que (?:todo (?:se )?termine"
        r"|(?:se )?termine todo)\b",
        r"\b(?:me|se) (?:quiero|quiere|va a|voy a|iba a) tirar (?:por|del|de|desde|bajo|al|a las)\b",
        r"\b(?:lastim|cort|quem|golpe|peg)[a-z]*<g2>(?:a proposito|adrede)\b",
        r"\b(?:tengo|tiene) (?:el|un|la) (?:arma|revolver|pistola|escopeta)<g2>(?:en la mano|cargad[oa])\b",
        r"\bcarta de despedida\b|\bsi (?:yo )?no (?:estuviera|existiera|hubiera nacido)\b|\b(?:mejor"
        r"|mas facil)<g3>sin mi\b",
        r"\bno vale la pena (?:vivir|seguir)\b|\b(?:cansad|hart)[oa] de vivir\b",
        r"\bno tengo (?:ganas|razones|motivos) (?:de|para) vivir\b",
        r"\b(?:mejor|preferiria|prefiero) (?:estar |estaria |estoy )?muert[oa]\b|\bojala me muera\b",
        r"\bsi me muero (?:mejor|nadie|da igual|no importa|es mejor)\b|\bmejor (?:si )?me muero\b",
        r"\bnadie me extranaria\b|\bdesaparecer de este mundo\b|\bquitar(?:me|se) la vida\b",
        r"\bquiero desaparecer\b(?! (?:las|los|el|la|unas|unos|mis|esta|este|esa|ese)\b)",
        r"\b(?:terminar|acabar) con todo\b(?! (?:el|la|los|las|esto|eso|lo)\b)",
        r"\b(?:acabar|terminar|poner fin) (?:con|a) mi vida\b|\b(?:termino|acabo|terminare"
        r"|acabare) con (?:todo|mi vida)\b"
        r"(?! (?:el|la|los|las|esto|eso|lo)\b)",
        r"\bauto ?lesi[a-z]*|\bhacerme dano\b|\bme hago dano\b",
        r"\b(?:me|se) (?:corte|corto|cortaba|cortan|cortaron|corta|lastime|lastimo|queme"
        r"|quemo) (?:a proposito|"
        r"adrede|para no sentir)",
        r"\b(?:me|se) (?:esta |estoy |estaba )?(?:corte|corto|cortaba|cortan|cortaron|corta|cortando) "
        r"(?:las|los|sus|mis) "
        r"(?:venas|munecas|brazos|piernas)\b",
        r"\bcortes en (?:los|las|sus|mis) (?:brazos|munecas|piernas)\b"
        r"|\b(?:me|se) (?:esta |estoy |estaba |sigo |sigue )?(?:hac[a-z]*|hizo|hice) cortes\b",
        r"\b(?:ideas|ideacion|pensamientos) (?:de muerte|de matarme|de morir)\b",
    ),
    _rule(
        _S,
        "strong",
        r"\b(?:matarme|suicidarme|ahorcarme|colgarme|quitarme la vida|envenenarme)\b(?! (?:de|a|con) )",
        before_veto=_rx(
            r"\b(?:va|van|vas|iba|iban|quiere|quieren|queria|querian|podria|podrian|intento|intentaron"
            r"|amenazo|"
            r"amenaza) (?:a )?$"
        ),
        unless=_HUMOR,
    ),
    _rule(_OVERDOSE, "strong", r"\bsobre ?dosis\b"),
    _rule(
        _OVERDOSE,
        "strong",
        r"\b(?:tome|tomo|trague|trago|tomaron)<g5>(?:botiquin|todo lo que (?:habia|tenia|encontre"
        r"|encontro))\b",
    ),
    _rule(
        _OVERDOSE,
        "strong",
        r"\b(?:me|se) (?:pase|paso|excedi|excedio|pasaste)<g2>(?:pastillas|remedios|medicamentos|dosis|"
        r"medicacion|clonazepam|rivotril|insulina)\b",
    ),
    _rule(
        _S,
        "strong",
        r"\b(?:a proposito|adrede|para no despertar|para morir|para dormir para siempre)\b",
        requires=_PILLS,
    ),
    _rule(
        _S,
        "strong",
        r"\b(?:voy a|va a|quiero|quiere|pienso|piensa|me voy a|se va a|estoy por|esta por|a punto de) "
        r"(?:saltar|tirarme|tirarse|arrojarme|arrojarse|lanzarme|lanzarse)\b",
        requires=_rx(
            r"\b(?:terraza|balcon|puente|techo|ventana|edificio|vias|tren|azotea|piso|precipicio"
            r"|acantilado)\b"
        ),
    ),
    _rule(
        _OVERDOSE,
        "strong",
        r"\b(?:tome|tomo|tomaron|tomaste|trague|trago|ingeri|ingirio|comi|comio|bebio|bebi)<g1>(?:todas las|"
        r"todos los|toda la|todo el|un blister|una caja|un frasco|una tira|un monton de|muchas|muchos|varias|"
        r"demasiad[a-z]*|\d{2,}|un pastillero|la caja|el frasco|el blister|una caja entera"
        r"|un blister entero)\b"
        r"(?!<g3>(?:del tratamiento|que me (?:recet|indic|dio|dijo)|como (?:me )?(?:dijo|indic)))",
        requires=_PILLS,
    ),
    _rule(
        _POISON,
        "strong",
        r"\b(?:tom[a-z]*|trag[a-z]*|bebi[a-z]*|bebe|comi[a-z]*|ingiri[a-z]*|ingeri[a-z]*|chup[a-z]*)<g3>"
        + _TOXIC
        + r"\b",
    ),
    # ----------------------------------------------------------------- child-only signals
    _rule(
        _K,
        "hist",
        r"\b(?:tiene|tienen|tengo|esta con|anda con|sigue con|amanecio con|se desperto con|volvio con"
        r"|vino con|"
        r"levanto|levanta|volando de|volando en|volando con|ardiendo en|ardiendo de|empezo con|le (?:subio"
        r"|sube|"
        r"agarro|dio|volvio)|le esta subiendo|con mucha|con)<g2>(?:fiebre|fievre|calentura|temperatura"
        r"|febril)\b"
        r"(?! amarilla)",
        r"\b(?:fiebre|calentura|temperatura)<g2>(?:alta|altisima|muy alta|que no baja|no (?:le )?baja|"
        r"(?:de |en |a )?(?:3[89]|4[0-2]))\b",
        r"\b(?:3[89]|4[0-2])<g1>(?:de fiebre|grados|de temperatura|y medio)\b",
        r"\b(?:tiene|esta con|con|levanto|marca|marco|dio) (?:3[89]|4[0-2])\b",
        r"\bfebril\b|\bmuy calient[ea]\b|\bardiendo\b|\bhirviendo en fiebre\b",
        child_only=True,
        before_veto=_rx(r"\b(?:si|cuando|cada vez que|siempre que)(?: [a-z]+){0,3} ?$"),
    ),
    _rule(
        _K,
        "hist",
        r"\bfiebre\b(?! amarilla)",
        r"\b(?:esta|se puso|se pone|se esta poniendo) (?:muy |re )?amarill[oa]\b|\bno quiere (?:comer|tomar"
        r"|mamar)\b"
        r"|\bduerme todo el (?:dia|tiempo)\b|\bno (?:se )?prende (?:a|al) (?:la teta|el pecho)\b",
        child_only=True,
        requires=_NEWBORN,
    ),
    _rule(
        _K,
        "weak",
        r"\bconv?ul[sc][a-z]*|\bataque\b(?! de (?:tos|risa|panico|ansiedad|celos|hipo|nervios))"
        r"|\btemblando\b|\bse puso rigid[oa]",
        r"\b(?:decaid[a-z]*|aletargad[a-z]*|letargic[a-z]*|flojit[a-z]*|muy floj[oa]|sin fuerzas?|"
        r"muy apagad[oa]|apagadit[oa]|muy dormid[a-z]*|somnolient[a-z]*|adormilad[a-z]*|adormecid[oa]|"
        r"hipotonic[a-z]*|blandit[oa]|chichon enorme)\b",
        child_only=True,
    ),
    _rule(
        _K,
        "hist",
        r"\bno (?:se |lo |la )?(?:puedo |podemos )?desp(?:ie|e)rt[a-z]*|\bno (?:se )?quiere despertar\b"
        r"|\bno reacciona[a-z]*|\bno responde\b|\bcomo id[oa]\b|\bno (?:me|nos) mira\b|\bno abre los ojos\b"
        r"|\bno se mueve\b|\bllanto inconsolable\b",
        r"\bdeshidrat[a-z]*|\bno (?:moja|mojo|ha mojado)<g1>panal[a-z]*|\bno (?:hace|hizo) (?:pis|pipi)\b"
        r"|\b(?:llora )?sin lagrimas\b|\bvomita todo\b|\bno (?:para|deja) de vomitar\b"
        r"|\bvomit[a-z]* (?:sin parar|todo)\b|\bfontanela hundida\b|\bojos hundidos\b",
        r"\bvomit[a-z]* (?:verde|negro|con sangre|bilis)\b|\bpanza (?:muy )?(?:hinchada|dura|distendida)\b",
        r"\bpetequi[a-z]*|\bmanch[a-z]* (?:rojas|violetas|moradas)<g3>no (?:se van|desaparecen|se borran)\b",
        r"\bse (?:[a-z]+ )?(?:cayo|cae|golpeo|pego|dio)<g5>(?:cabeza|nuca|craneo|frente)\b"
        r"|\bgolpe<g2>(?:cabeza|nuca|frente)\b",
        r"\bca(?:y|id)(?:o|eron)<g3>(?:de|del|desde|por)<g2>(?:cama|cuna|cambiador|escaleras?|silla|tobogan"
        r"|hamaca|"
        r"balcon|ventana|techo|mesa|sillon|altura|brazos|cochecito|carrito|trampolin|arbol|caballo|"
        r"bici[a-z]*|moto|terraza|upa|cama elastica)\b",
        child_only=True,
    ),
    _rule(
        _K,
        "hist",
        r"\bse (?:[a-z]+ )?trag(?:o|a|aron|ado)\b(?!<g2>(?:chicle|semilla|carozo|pasta de dientes|mocos"
        r"|agua))",
        r"\b(?:se )?(?:comio|metio en la boca|chupo)<g2>(?:pila[a-z]*|moneda[a-z]*|iman[a-z]*|boton[a-z]*"
        r"|bolita[a-z]*|"
        r"bateria[a-z]*|tornillo[a-z]*|clavo[a-z]*|aro[s]?|arete[a-z]*)\b",
        r"\b(?:se )?(?:tomo|trago|comio|bebio|chupo|tomaron"
        r"|comieron)<g3>(?<!el )(?<!la )(?<!su )(?<!las )(?<!sus )"
        r"(?:pastill[a-z]*|remedio[a-z]*|medicament[a-z]*|jarabe[a-z]*|pildor[a-z]*|comprimid[a-z]*|alcohol|"
        r"vino|cerveza|pila[a-z]*|gotas|medicacion|medicina[a-z]*)\b",
        child_only=True,
    ),
    _rule(
        _K,
        "strong",
        r"\b(?:se )?(?:tomo|trago|comio|bebio|tomaron)<g5>(?:entero|entera|un frasco|toda la caja"
        r"|todo el frasco|"
        r"todas|todos)\b(?! (?:los|las) (?:dias|noches|mananas|tardes|semanas))",
        child_only=True,
        requires=_PILLS,
    ),
    # ----------------------------------------------------------------- imminent death
    _rule(
        _D,
        "strong",
        r"\b(?:esta|estoy|estas|estan|estamos|sigue) muriendo(?:se|me|nos)?\b<idiom>",
        r"\bmuriendo(?:se|me|nos)\b<idiom>",
        r"\bse (?:nos|me|le|les) (?:esta )?(?:va|yendo)\b<idiom>(?! (?:la|el|los|las|a|al|de|en|con)\b)",
        r"\bse (?:nos|me|le|les) (?:esta )?(?:muere|murio)\b<idiom>",
        r"\bse muere\b<idiom>",
        r"\b(?:esta|estoy|estan) (?:por|a punto de) morir(?:se|me)?\b<idiom>",
        r"\b(?:siento|creo|pienso|parece|senti|sentia)(?: que)? me (?:muero|voy a morir"
        r"|estoy muriendo)\b<idiom>",
        r"(?<!\bsi )\bme voy a morir\b<idiom>(?! si\b)",
        r"\b(?:esta|sigue|lo veo|la veo|se puso|se pone|quedo|estan)(?: muy| re| super| bien| tan){0,3} "
        r"(?:grave|gravisim[oa])\b|\bgravisim[oa]\b|\bestado (?:critico|grave)\b",
        r"\bagoniz[a-z]*|\bagonia\b|\bagonic[oa]\b|\b(?:esta|entro|cayo|quedo) en coma\b|\bno pasa de (?:hoy"
        r"|esta noche)\b|\ben las ultimas\b(?! (?:semanas|dias|horas|meses|veces|\d))"
        r"|\bal borde de la muerte\b|\b(?:pocas|unas|contadas) (?:horas|dias) de vida\b"
        r"|\ble quedan (?:pocas )?horas\b|\bentre la vida y la muerte\b|\bno pasa (?:de )?(?:la"
        r"|esta) noche\b",
        r"\bsin signos vitales\b|\bno tiene signos vitales\b|\bsin pulso\b"
        r"|\bno (?:tiene|le (?:siento|encuentro|encontramos|sentimos)|se le siente) (?:el )?pulso\b"
        r"|\bno le late el corazon\b|\bse (?:le|me) (?:para|paro|detuvo|detiene) el corazon\b"
        r"|\b(?:no (?:le )?(?:siento|encuentro|tiene|hay)|sin) latidos\b|\bdejo de (?:respirar|latir)\b"
        r"|\bpar[oa] de respirar\b",
        r"\bse (?:nos |me )?(?:esta )?apagando\b|\bse (?:nos |me )?(?:esta )?poniendo fri[oa]\b",
        r"\b(?:creo|parece)(?: que)?<g3>(?:se )?(?:murio|esta muert[oa])\b",
        unless=_NONHUMAN,
    ),
    _rule(_D, "health", r"(?<!\bsi )\bme muero\b<idiom>", unless=_NONHUMAN),
    _rule(
        _D,
        "strong",
        r"\bse (?:nos |me )?(?:esta|estan) yendo\b",
        requires=_rx(
            r"\b<respir>|\bgrave\b|\bpulso\b|\bpaliativ[a-z]*|\bno responde\b|\bmuy mal\b|\bagoni[a-z]*"
            r"|\bmurie[a-z]*"
        ),
        unless=_NONHUMAN,
    ),
    # ----------------------------------------------------------------- cardiac
    _rule(
        _C,
        "strong",
        r"\bduel[ea]\b<g3>(?:el |en el |del |al )?<pecho>\b",
        r"\b<pecho>\b<g2>(?:me |le |te )?duel[ea]\b",
        r"\b(?:puntadas?|pinchazos?|punzadas?|presion|opresion|peso|piedra|elefante|aprieta|aprietan|apretado"
        r"|"
        r"apretazon|tension|estrujan|estruja)\b<g4>(?:en|sobre|del|al|el|de|mi)<g1><pecho>\b",
        r"\b(?:puntada|pinchazo|punzada|dolor|duele|opresion)<g3>(?:al lado del |en el |del )corazon\b",
        r"\b(?:siento|sentia|siente|dando|agarrando|pasando|da|dio|agarro|vino)<g2>algo<g2>(?:en"
        r"|al) (?:el )?<pecho>\b"
        r"|\b(?:me|le|te) (?:oprime|pesa|aprieta|estruja|pincha|punza|arde mucho|quema mucho) el <pecho>\b",
        r"\b(?<!tomar )(?<!dar )(?<!tomar el )(?<!dar el )<pecho>\b<g4>(?:apret[a-z]*|oprim[a-z]*"
        r"|estruj[a-z]*|aplast[a-z]*|"
        r"punzad[a-z]*|pinch[a-z]*|opresion|presion|dolor[a-z]*|duel[ea][a-z]*)",
        r"\bcorazon<g3>(?:explot[a-z]*|estall[a-z]*|sale del <pecho>)\b",
        r"\b(?:falla|fallando|fallo) (?:el|del|su) corazon\b|\bcorazon (?:le |me )?(?:falla|esta fallando"
        r"|debil)\b",
        r"\b<pecho> (?:apretado|oprimido|pesado)\b|\bopresion (?:toracica|precordial)\b",
        r"\b(?:agarr[a-z]*|tom[a-z]*|toc[a-z]*|apret[a-z]*) el <pecho>\b|\bqueja[a-z]* del <pecho>\b",
        r"\bcorazon(?: [a-z]+){0,2} (?:a mil|acelerad[a-z]*|desbocad[a-z]*|descontrolad[a-z]*|"
        r"se (?:me|le) (?:sale|quiere salir))\b",
        r"\bcorazon<g3>(?:late|latiendo|palpita|va|anda)<g2>(?:rapid[a-z]*|fuert[a-z]*|rar[a-z]*|a mil|"
        r"loc[oa]|acelerad[a-z]*|descontrolad[a-z]*|desbocad[a-z]*)\b",
        r"\b(?:late|lata|laten|latiendo|palpita)<g2>(?:rapid[a-z]*|fuert[a-z]*|rar[a-z]*|a mil|loc[oa]"
        r"|acelerad[a-z]*|"
        r"descontrolad[a-z]*)<g3>corazon\b",
        r"\b(?:pulsaciones|pulso|frecuencia(?: cardiaca)?|latidos)(?: [a-z]+){0,2} (?:1[4-9]\d|2\d\d"
        r"|[1-3]\d)\b",
        r"\b(?:duel[ea]|dolor|hormigue[a-z]*|adormec[a-z]*|entumec[a-z]*|entumid[a-z]*|corre|irradia[a-z]*|"
        r"baja|va)\b<g4>(?:el |al |la |por el |por la |hacia el )?brazo izq[a-z]*",
        unless=_rx(r"\bvacuna[a-z]*\b"),
    ),
    _rule(
        _C,
        "strong",
        r"\b(?:duel[ea]|dolor|hormigue[a-z]*|adormec[a-z]*|corre|irradia[a-z]*|va)\b<g4>(?:la "
        r"|a la )?mandibula\b",
        requires=_rx(r"\bbrazo\b|\b<pecho>\b|\bsudor|\bsudando"),
    ),
    _rule(
        _C,
        "hist",
        r"\bsudor frio\b|\bsudando frio\b|\b(?:palid[oa]|gris)<c5>(?:fri[oa]|sudando|sudad[oa]"
        r"|transpirando)\b",
        r"\bdolor[a-z]*<g2>(?:en|de|del|al|sobre)<g3><pecho>\b",
        r"\bdolor (?:toracico|precordial|opresivo)\b",
    ),
    _rule(
        _C,
        "weak",
        r"\b(?:ardor|arde|quema|molestia|angustia)\b<g3>(?:en|sobre|del|al|el)<g1><pecho>\b",
        r"\binfart[a-z]*|\binfrat[a-z]*|\bataque (?:al|del|de) corazon\b|\bataque cardiac[a-z]*"
        r"|\bparo (?:cardiac[a-z]*|cardio[a-z]*|del corazon)|\b(?:dio|agarro|vino|dando|teniendo"
        r"|tuvo) un paro\b|\bsindrome coronario\b|\bangina de <pecho>"
        r"|\bangina inestable\b",
        r"\binsuficiencia cardiaca\b|\btaquicardi[a-z]*|\bpalpitacion[a-z]*|\barritmi[a-z]*"
        r"|\bse saltea[a-z]* latidos\b|\bfibrilacion\b",
    ),
    # ----------------------------------------------------------------- respiratory
    _rule(
        _R,
        "strong",
        r"\bno (?:puedo|puede|podes|pueden|podia|podemos|pudo|logra|logro|consigo|consigue)(?: [a-z]+){0,2}? "
        r"<respir>\b(?! (?:bien )?por la nariz)",
        r"\b(?:no|apenas|casi no) (?:me |le |te )?(?:respira|respiro|respiras|respiran|respiraba)\b"
        r"(?! (?:bien )?por la nariz)",
        r"\b<respir><g2>(?:muy |re |super |bastante |demasiado )?(?:mal|rapid[a-z]*|agitad[a-z]*|"
        r"entrecortad[a-z]*|rar[a-z]*|fatal|poquito|lent[oa]|lentisimo|peor|cada vez peor|ruidoso"
        r"|como (?:un )?(?:pescado|pez|perrito)|"
        r"con (?:mucha |mucho |muchisima |muchisimo )?(?:dificultad|esfuerzo|ruido|silbido))\b",
        r"\bse (?:le|me) hunde (?:la panza|el pecho|las costillas|la barriga)\b|\bboque(?:a|ando)\b",
        r"\bno (?:me |le |te |nos |lo |la )?(?:deja|dejan|dejaba|permite) <respir>|"
        r"\b(?:me|le|te|nos|les) (?:esta )?(?:cuesta|costando|costo|costaba)<g2><respir>"
        r"|\bdificultad(?:es)? (?:para|al) <respir>"
        r"|\bdificultad respiratoria\b|\binsuficiencia respiratoria\b|\bdisnea\b|\bdificil <respir>",
        r"\bno (?:me |le |te |nos )?(?:entra|pasa|llega|alcanza|viene)<g1>(?:el )?(?:aire|oxigeno)\b",
        r"\b(?:no (?:puedo|puede|podes|pueden|logro|logra|consigo|consigue)|(?:me|le|te) cuesta(?: mucho)?) "
        r"(?:tomar|agarrar|jalar|meter|sacar) (?:el )?aire\b",
        r"\basfixi[a-z]*|\batragant[a-z]*|\bse (?:me |le )?ator(?:o|ado|ada)\b|\batorad[oa]\b"
        r"|\btrabad[oa] en la garganta\b|\batascad[oa] en la garganta\b",
        r"\b(?:labios|boca|cara|unas|dedos)<g1>(?:azul[a-z]*|morad[oa]s?|violet[a-z]*|gris[a-z]*)\b",
        r"\b(?:inhalador|puff|paf|salbutamol|ventolin|nebuliz[a-z]*)\b<g5>no (?:le |me )?(?:hace|hizo"
        r"|funciona|"
        r"sirve|sirvio|ayuda|alcanza)\b",
        r"\bno (?:le |me )?(?:hace|hizo) (?:nada|efecto)<g3>(?:inhalador|puff|paf|salbutamol|ventolin"
        r"|nebuliz[a-z]*)",
        r"\b<pecho> cerrado\b|\bse (?:me|le) cierra el <pecho>\b|\bsilb[a-z]* (?:al|cuando) <respir>"
        r"|\bsilbido[a-z]* (?:en el <pecho>|al <respir>)",
        r"\bsatur[a-z]*(?: [a-z]+){0,3} (?:[5-8]\d|9[01])\b|\boxigeno (?:en|de|a|al) (?:[5-8]\d|9[01])\b",
        r"\bhund[a-z]* (?:las )?costillas\b|\btiraje\b|\baleteo nasal\b|\bestridor\b|\bjade[a-z]+",
    ),
    _rule(
        _R,
        "strong",
        r"\bah?og(?:o|a|as|an|ando|andose|andome|andote|ado|ada|aba|ue|arse|arme)\b"
        r"(?! (?:en|de|con|por) (?:(?:este|esta|tanto|tanta|el|la|los|las|tantos|tantas) )?(?:papeles|deudas|"
        r"trabajo|tramites|calor|gastos|cuentas|humo de cigarrillo))",
        unless=_HUMOR,
    ),
    _rule(
        _R,
        "weak",
        r"\bsin aire\b(?! (?:de tanto|de la risa|de risa|acondicionado))|\bsin (?:poder )?<respir>",
        unless=_HUMOR,
    ),
    _rule(
        _R,
        "strong",
        r"\bfalta(?:ba)?<g2>(?:de )?(?:el )?aire\b(?! acondicionado)",
        unless=_rx(
            r"\bcuando (?:sub|camin|corr|hag|hac|entren|hablo mucho|me agito)[a-z]*\b|\bhace (?:meses|anos"
            r"|mucho tiempo)\b"
        ),
    ),
    _rule(
        _R,
        "hist",
        r"\b(?:ataque|crisis|broncoespasmo|episodio)<g1>(?:de )?asm[a-z]*|\bbroncoespasmo\b"
        r"|\bcrisis asmatica\b",
    ),
    _rule(
        _R,
        "strong",
        r"\b(?:se (?:puso|pone|esta poniendo|le puso|le pone)|esta|se le estan poniendo|se le esta poniendo)"
        r"(?: todo| toda| re| muy)? (?:azul|morad[oa]|violeta)\b",
        unless=_rx(
            r"\b(?:moreton[a-z]*|hematoma|machuc[a-z]*|martill[a-z]*|dedo|una|rodilla|ojo|pie|golpe)\b"
        ),
    ),
    # ----------------------------------------------------------------- neurological
    _rule(
        _N,
        "strong",
        r"\b(?:torc[a-z]*|tuerce|tuerza|chuec[oa]|desviad[oa]|cai[a-z]*|cay[a-z]*|cae)<g2>(?:la )?(?:boca"
        r"|cara)\b"
        r"(?! de verguenza)",
        r"\b(?:boca|cara)<g1>(?:torcid[oa]|chuec[oa]|caid[oa]|paralizad[oa]|desviad[oa]|colgad[oa])\b"
        r"|\bmitad de (?:la|su) cara\b|\bparalisis facial\b",
        r"\b(?:durm[a-z]*|duerm[a-z]*|dormid[oa]|adormec[a-z]*|paraliz[a-z]*|no (?:siente|siento|puede mover|"
        r"puedo mover|mueve|muevo)|entumec[a-z]*|hormigue[a-z]*|sin fuerza|debil[a-z]*)\b<g4>(?:medio cuerpo|"
        r"mitad del cuerpo|(?:un|el) lado del cuerpo|lado (?:izquierdo|derecho)|la mitad)\b",
        r"\b(?:medio cuerpo|mitad del cuerpo|lado del cuerpo)<g3>(?:durm[a-z]*|dormid[oa]|paraliz[a-z]*|"
        r"adormecid[oa]|no (?:lo |la )?(?:siente|siento|mueve|muevo))\b",
        r"\bno (?:puedo|puede|podia|pudo) (?:mover|levantar|sentir)<g2>(?:brazo|pierna|mano|lado|cara|piernas"
        r"|"
        r"brazos)\b|\bno (?:siento|siente|sentia|sentimos) (?:las|los|el|la|mis|sus) (?:piernas|brazos|pierna"
        r"|brazo|"
        r"cara|lado)\b|\bperd[a-z]* (?:la )?fuerza (?:en|de)<g1>(?:brazo|pierna|mano|lado|piernas|brazos)\b",
        r"\bno (?:puede|puedo|podia|pudo) (?:ni )?hablar\b(?! (?:por|con|al|a|del|de|sobre|ingles|espanol)\b)"
        r"|\bhabl(?:a|ar|ando|aba) (?:raro|rara|trabad[oa]|arrastrad[oa]|incoherente[a-z]*|sin sentido"
        r"|cosas sin sentido)\b"
        r"|\bhabl(?:a|ar|ando) mal\b(?! de)|\bse (?:le|me) cae la baba\b"
        r"|\barrastra[a-z]* (?:las )?palabras\b|\bno se le entiende\b|\bno le salen las palabras\b"
        r"|\blengua trabada\b|\bbalbuce[a-z]*",
        r"\bperd[a-z]* (?:el )?(?:conocimiento|sentido|conciencia)\b|\bsin (?:conocimiento|conciencia)\b"
        r"|\bpatatus\b|\bsoponcio\b|\bchiripiorca\b|\bi[nm]con?s?c?ient[a-z]*"
        r"|\bdesvaneci[a-z]*|\bdesplom[a-z]*|\bno reacciona[a-z]*|\bno vuelve en si\b"
        r"|\bno (?:se |lo |la )?(?:puedo |podemos )?desp(?:ie|e)rt[a-z]*|\bno abre los ojos\b"
        r"|\bsin (?:respuesta|reaccion)\b|\bmirada perdida\b|\b(?:esta|quedo) como id[oa]\b"
        r"|\bse cayo redondo\b|\bojos en blanco\b|\bespuma por la boca\b"
        r"|\bse puso rigid[oa]\b|\bconv?ul[sc]ionando\b|\bconv?ul[sc]iona\b"
        r"|\b(?:esta|estan) (?:teniendo|con) (?:una )?conv?ul[sc][a-z]*",
        r"\b(?:peor|el peor) dolor de cabeza\b",
    ),
    _rule(_N, "strong", r"\bno (?:me |le |nos )?(?:responde|contesta)\b", unless=_COMMUNICATION),
    _rule(
        _N,
        "hist",
        r"\bse (?:me|le) (?:durmio|duerme|adormecio|adormece|entumecio|entumece|paralizo|paraliza"
        r"|esta durmiendo)"
        r"<g2>(?:la |el |media |medio |un |una )?(?:cara|brazo|pierna|mano|boca|lengua|lado|cuerpo)\b"
        r"(?!<g3>(?:de estar|por estar|sentad[oa]|cruzad[oa]|de dormir))",
        r"\bparalizad[oa]\b|\bse (?:me|le) paraliz[a-z]*",
    ),
    _rule(
        _N,
        "strong",
        r"\bno se mueve\b(?! (?:de|del|mucho|bien|sol[oa]|nada de)\b)|\bperdio el habla\b"
        r"|\bse le traba la lengua\b",
        unless=_NONHUMAN,
    ),
    _rule(
        _N,
        "strong",
        r"\bdolor de cabeza\b|\bme duele<g2>la cabeza\b|\b(?:me|le) (?:va a )?explota[a-z]* la cabeza\b"
        r"|\bla cabeza (?:me|le) (?:va a )?explota[a-z]*",
        requires=_rx(
            r"\bvomit[a-z]*|\bnunca\b|\bde golpe\b|\bde repente\b|\brigid[a-z]*|\bnuca\b|\bdesma[a-z]*"
            r"|\bno veo\b"
            r"|\bvista\b|\bconfund[a-z]*|\b(?:no soporto|me molesta) la luz\b|\bpeor\b"
        ),
    ),
    _rule(
        _N,
        "weak",
        r"\bacv\b|\ba (?:\. )?c (?:\. )?v\b|\bderrame cerebral\b|\bataque cerebral\b"
        r"|\baccidente cerebro[a-z]*"
        r"|\bictus\b|\bembolia\b|\btrombosis cerebral\b",
        r"\bconv?ul[sc][a-z]*|\bataque epileptic[a-z]*|\bcrisis (?:epileptic[a-z]*|convulsiv[a-z]*)"
        r"|\bataque de epilepsia\b",
        r"\b(?:le|me) (?:dio|agarro|vino|esta dando) un ataque\b(?! de (?:tos|risa|panico|ansiedad|nervios"
        r"|celos|hipo|"
        r"asma|alergia))|\b(?:perd[a-z]*|fue|sin)<g4>fuerza (?:en|de|del)<g1>(?:brazo|pierna|mano|lado"
        r"|piernas|brazos)\b"
        r"|\bdelir[a-z]*",
        r"\bde[sz]ma(?:y|ll|i)[a-z]*|\bno (?:me|nos|la|lo) reconoce\b|\bconfundid[oa]\b|\bdesorientad[oa]\b"
        r"|\bsomnolient[oa]\b",
        r"\bno veo<g2>(?:de|por|con)<g1>ojo\b|\bcieg[oa] de (?:un|el) ojo\b|\bperd[a-z]* (?:la )?(?:vista"
        r"|vision)\b"
        r"|\bperdida (?:subita |brusca )?de (?:la )?vision\b|\bveo doble\b|\bvision doble\b|\bno veo nada\b"
        r"|\bse (?:me|le) (?:nublo|fue) la vista\b",
        r"\b(?:golpe[a-z]*|peg[a-z]*|dio|di)<g2>(?:en )?(?:la )?(?:cabeza|nuca)\b|\bgolpe (?:en"
        r"|de) la cabeza\b"
        r"|\btraumatismo (?:de craneo|craneal|encefalico)\b",
    ),
    # ----------------------------------------------------------------- bleeding
    _rule(
        _B,
        "strong",
        r"\bno (?:para|paraba|paro|deja|dejaba|dejo|se detiene|se corta|cesa|se frena|frena|logro parar"
        r"|puedo "
        r"parar|podemos parar|puedo detener)<g1>(?:de )?sangr[a-z]*",
        r"\bsangr[a-z]*<g5>(?:y )?(?:no (?:para|se detiene|se corta|deja|cesa|frena|se frena)|sin parar|"
        r"sin detenerse)\b",
        r"\bsangr(?:a|o|an|ando|e|aba|ado)\b<g2>(?:mucho|muchisimo|un monton|demasiado|bastante|a chorros|"
        r"a mares|a montones|abundante[a-z]*|sin control|horrible|fuerte)\b",
        r"\b(?:mucha|muchisima|demasiada|tanta|un monton de|un charco de|charco de|chorros? de|lleno de|"
        r"llena de|llenos de|cubiert[oa] de|banad[oa] en) sangre\b|\bsangre a chorros\b"
        r"|\bsangre<g2>(?:por todos lados|por todas partes|a montones|a borbotones|sin parar|un monton)\b",
        r"\bperd[a-z]*<g2>sangre\b",
        r"\b(?:vomit[a-z]*|bomit[a-z]*|tos[a-z]*|escup[a-z]*|orin[a-z]*|caca|cag[a-z]*|heces|defec[a-z]*"
        r"|materia fecal|"
        r"flema[a-z]*|esputo)<g2>(?:con )?sangre\b|\bsangre (?:en|por) (?:la|el) (?:vomito|boca|nariz|oido|"
        r"oidos|orina|materia fecal|heces|caca)\b|\bhematemesis\b|\bborra de cafe\b|\bhemoptisis\b",
        r"\b(?:sale|salia|salio|salir|saliendo|sale mucha|brota|chorrea|chorreando|corre|corria"
        r"|mana) sangre\b"
        r"|\bsangre por (?:la|toda la) (?:cara|cabeza)\b",
        r"\bdesangr[a-z]*",
        r"\bsangr(?:o|a|as|an|ando|aba|ado|e)\b<c5>(?:mucho|muchisim[oa]|un monton|montones|chorros?"
        r"|a chorros|"
        r"abundante[a-z]*|sin parar|empap[a-z]*|todo lleno|charco|litros|demasiad[oa]|tremend[oa]|horrible|"
        r"cantidad|por todos lados|a mares|a borbotones|no para|no se detiene|no deja)\b",
        r"\b(?:mucho|muchisimo|un monton|demasiado|abundante[a-z]*|a chorros)<g2>sangr(?:o|a|an|ando|aba"
        r"|ado)\b",
        unless=_rx(
            r"\bencias?\b|\bcepill[a-z]*|\b(?:sac[a-z]*|extraccion|analisis|estudios?|donar|dona[a-z]*"
            r"|muestras?|"
            r"laboratorio)<g2>sangre\b"
        ),
    ),
    _rule(
        _B,
        "hist",
        r"\bhemorr?agi[a-z]*|\bemorr?agi[a-z]*",
        r"\bsangrado[a-z]*<g2>(?:abundante|profuso|fuerte|importante|intenso|muy fuerte|que no para|enorme|"
        r"masivo)\b|\b(?:mucho|abundante|gran|bastante|fuerte|tremendo) sangrado\b",
        r"\bsangrando\b(?! (?:un poco|poquito|un poquito|apenas|poco)\b)",
    ),
    _rule(
        _B,
        "hist",
        r"\bsangr(?:a|o|an|ando|ado|ados|ar|aba|amos)\b|\bmanch(?:o|ando|ado|e)\b"
        r"|\bperdidas?\b(?! de (?:peso|tiempo|liquido|orina|memoria))"
        r"|\b(?:sale|salir|salio|saliendo|baja|bajo|bajando|tengo|hay|con|manchas? de|mancho"
        r"|manche) sangre\b",
        requires=_PREGNANCY,
    ),
    # ----------------------------------------------------------------- explicit emergency
    _rule(
        _E,
        "free",
        r"\be[mn]er[gj][ei]n[cs]i[a-z]*|\bur[gj]en[cs]i[a-z]*|\bur[gj]ente[a-z]*|\bur[gj]e\b|\burgentisimo\b",
        r"\ba[mn]bula[nm][cs]i[a-z]*",
        unless=_rx(_PETS + r"|\bemergencias (?:medicas )?privadas\b"),
        before_veto=_rx(
            r"\b(?:servicio|servicios|consulta|consultas|salida|reunion|cobertura|kit|plan|area|sector|sala|"
            r"boton|puerta|escalera|turno|turnos|telefono|numero|linea|medicos?|departamento|tratamiento|"
            r"cirugia|caso|casos|solo|sola|guardia|odontologia|odontologica|odontologo|dentista|atencion"
            r"|atender|"
            r"atienden|atiende|pediatria|clinica|medico|traslados?|empresa|empresas|movil|moviles|chofer|"
            r"curso|cursos|capacitacion) (?:de|para|por|en) (?:las |la |una |un )?$"
        ),
    ),
    _rule(
        _E,
        "strong",
        r"\b(?:manden|mandar|mandame|mandenme|manda|envien|enviar|envia|necesito|necesitamos|necesita|pidan|"
        r"pedir|pedi|pido|llamen|llamar|llame|llama|llamo|llamamos|viene|venga|vengan|llega|llegue|espero|"
        r"esperando|esperamos|llamaron|pedimos)<g1>a[mn]bula[nm][cs]i[a-z]*",
        r"\b(?:llam[a-z]*|marc[a-z]*|comunic[a-z]*|avis[a-z]*|hable|hablamos|contact[a-z]*)<g1>(?:al |a |el |"
        r"con el |con )?(?:911|107|112|100|same|sem|061|065|emergencias)\b",
        r"(?<!calle )(?<!avenida )(?<!av )\b911\b",
        r"\batropell[a-z]*",
        r"\b(?:esta|estan|quedo|quedaron|hay|muy|gravemente|mal) herid[oa]s?\b|\bherid[oa]s? (?:de bala|"
        r"grave[a-z]*|de arma)|\bherida (?:de bala|de arma|profunda|abierta|grande|enorme)\b"
        r"|\bapunal[a-z]*|\bacuchill[a-z]*|\b(?:pegaron|dieron|pego|dio|metieron) un (?:tiro|balazo)\b"
        r"|\bbalead[a-z]*|\bbalazo[a-z]*|\ble dispararon\b|\bme dispararon\b"
        r"|\bpunalada[a-z]*|\bcuchillazo[a-z]*|\bdisparo[a-z]*",
        r"\bmonoxido\b|\bgas toxico\b|\binhal[a-z]*<g2>humo\b|\bse (?:esta |estan )?(?:quemando|incendiando) "
        r"(?:la|el|mi|su) (?:casa|departamento|depto|edificio|cocina|habitacion|pieza)\b|\bincendio\b"
        r"(?! (?:forestal )?(?:de|del) (?:ano|mes|la semana) pasad[oa])",
        rf"\b(?:tom[a-z]*|trag[a-z]*|bebi[a-z]*|comi[a-z]*|ingiri[a-z]*|ingeri[a-z]*)<g3>{_TOXIC}\b",
        r"\b(?:hinch[a-z]*|inflam[a-z]*)<g4>(?:lengua|labios|glotis)\b"
        r"|\b(?:lengua|labios|glotis)<g2>(?:hinchad[a-z]*|inflamad[a-z]*|hinchando)\b"
        r"|\b(?:cierr[a-z]*|cerr[a-z]*|cerrando)<g3>(?:la )?garganta\b|\bgarganta<g1>(?:cerrad[a-z]*"
        r"|cerrando)\b"
        r"|\bedema de (?:glotis|quincke)\b|\b(?:shock|choque) anafilac[a-z]*",
        r"\bquem[a-z]*<g5>(?:aceite|agua|leche) hirviend[a-z]*|\bquem[a-z]*<g3>(?:fuego|incendio|llamas|acido"
        r"|"
        r"soda caustica)\b|\bquemadura[a-z]*<g3>(?:grave[a-z]*|grande[a-z]*|enorme[a-z]*|profund[a-z]*|"
        r"de (?:segundo|tercer|2|3|2do|3er|tercero) grado|en toda|extens[a-z]*)\b"
        r"|\bquem[a-z]* (?:toda|todo) (?:la|el|su|mi)\b|\bquem[a-z]*<g2>(?:la )?cara\b"
        r"|\bampollas? (?:enorme|gigante|grande)[a-z]*|\bse prendio fuego\b",
        r"\bhueso (?:expuest[oa]|afuera|salido)\b|\bse (?:le|me) ve el hueso\b|\bfractura expuesta\b"
        r"|\bsale el hueso\b",
        r"\b(?:cayo|cai|caimos|cayeron)<g5>no (?:se |me |nos )?(?:puede|puedo|podemos|logra|pudo)<g1>"
        r"(?:levantar[a-z]*|mover[a-z]*|parar[a-z]*|caminar|incorporar[a-z]*)\b"
        r"|\bno (?:se |me )?(?:puede|puedo|pudo) (?:levantar|mover|incorporar)(?:se|me)?\b"
        r"(?! (?:a|para|el|la|los|las|mi|su|un|una|del|de)\b)|\bno puede moverse\b",
        r"\bse cayo (?:de|del|desde)<g2>(?:techo|escalera|andamio|altura|terraza|arbol|balcon|ventana|moto|"
        r"caballo|segundo piso|primer piso|tercer piso|un piso|bici[a-z]*)\b"
        r"|\b(?:esta|quedo) tirad[oa] (?:en|sobre) (?:el piso|la calle|el suelo|la vereda|el bano)\b"
        r"|\btirad[oa] en el (?:piso|suelo)\b",
        r"\bmord[a-z]*<g3>(?:perro|perra|vibora|serpiente|culebra|arana|alacran|escorpion|murcielago|rata|"
        r"mono)\b|\b(?:perro|perra|vibora|serpiente|culebra|arana|alacran|escorpion|murcielago|rata)<g2>"
        r"(?:me|le|lo|la|nos|les) mordi[a-z]*\b(?! (?:suave|jugando|apenas|un poquito|sin querer))"
        r"|\bpic[a-z]*<g3>(?:vibora|serpiente|culebra|alacran|escorpion|"
        r"arana)\b|\bpicadura de (?:vibora|serpiente|alacran|escorpion|arana)\b|\bmano destrozada\b",
        r"\b(?:atac[a-z]*|mordi[a-z]*)<g3>(?:un |unos |el |los )?(?:perros|jauria|pitbull|dogo|"
        r"rottweiler)\b|\b(?:nos|lo|la|le|me|les) atac[a-z]* (?:un|unos|el|los) perros?\b",
        r"\bcontracciones<g2>(?:seguidas|cada \d+|muy fuertes|fuertisimas)\b|\brompi[a-z]*<g1>(?:la )?bolsa\b"
        r"|\brompi[a-z]*<g1>(?:la )?fuente\b|\btrabajo de parto\b|\bestoy pariendo\b|\besta naciendo\b"
        r"|\bse (?:me|le) (?:rompio|rompe) (?:la )?(?:bolsa|fuente)\b",
        r"\bexplosion\b|\bexploto\b|\b(?:esta|quedo|estan) (?:todo |toda |muy |re )?quemad[oa]s?\b",
        r"\b(?:arranc[a-z]*|amput[a-z]*|cercen[a-z]*)<g3>(?:dedos?|mano|brazo|pierna|pie|oreja)\b"
        r"|\bse (?:volo|arranco|amputo) (?:un|el|dos|los|tres) dedos?\b"
        r"|\b(?:dedos?|mano|oreja)<c5>(?:se (?:lo|la|los) )?(?:arranc|amput|cercen)[a-z]*",
        r"\bcarne viva\b|\b(?:lo|la|me|nos|le|les) (?:agarro|piso|llevo puesto|llevo por delante|embistio) "
        r"(?:un|una|el|la) (?:auto|coche|carro|camion|colectivo|moto|bondi|micro|tren|camioneta|taxi)\b",
        r"\belectrocut[a-z]*|\bdescarga electrica\b|\b(?:me|le|lo|la) (?:dio|agarro|paso) (?:la )?corriente\b"
        r"|\bcorrientazo\b",
    ),
    _rule(
        _E,
        "weak",
        r"\baccident[a-z]*|\bcho(?:co|camos|caron|cado|que)<g3>(?:moto|auto|coche|carro|camion|colectivo"
        r"|bici[a-z]*|"
        r"poste|arbol)\b|\bvolc[a-z]* (?:con|el|la) (?:auto|moto|camioneta)\b",
        r"\bintoxi[cq][a-z]*|\benvenen[a-z]*",
        r"\breaccion alergica\b|\banafila[a-z]*",
        r"\b(?:hinch[a-z]*|inflam[a-z]*)<g4>(?:garganta|cara|boca|ojos|parpados)\b"
        r"|\b(?:garganta|cara|boca|ojos|parpados)<g1>(?:hinchad[a-z]*|hinchando)\b",
        r"\b(?:se|me|le) (?:rompio|rompi|quebro|quebre|fracturo|fracture|partio|parti)<g2>(?:brazo|pierna"
        r"|cadera|"
        r"muneca|tobillo|hombro|clavicula|costillas?|cabeza|nariz|mano|pie|rodilla|codo|femur|craneo|cuello|"
        r"espalda|columna|dedo|hueso|mandibula)\b|\bfractur[a-z]*",
        r"\bquemadura[a-z]*<g2>(?:mucho|muy|toda|todo)\b"
        r"|\b(?:cara|manos?|brazos?|piernas?|cuerpo|espalda|pecho) (?:toda |todo )?quemad[oa]s?\b"
        r"|\bgarrafa\b",
        r"\bhinch[a-z]* (?:todo|toda|entero|entera)\b",
        r"\b(?:morad[oa]|palid[oa]|azul|blanc[oa])<g1>y fri[oa]\b|\bfri[oa] y (?:morad[oa]|palid[oa]|azul)\b",
        r"\bno (?:aguanto|soporto|resisto|aguanta|soporta)<g1>(?:el|este|del|de|los|mas el) dolor"
        r"|\bdolor (?:insoportable|"
        r"inaguantable|terrible|horrible|desgarrador)|\bgrit[a-z]* de dolor|\bretorci[a-z]* de dolor"
        r"|\bdoblad[oa] (?:de|del) dolor",
        r"\bpresion<g2>(?:en |de |a )?(?:19|2\d|3\d)\b",
        r"\b(?:glucosa|glucemia|azucar|glicemia|hgt|dextro)<g2>(?:en |de |a )?(?:[1-5]\d|[4-9]\d\d)\b",
        r"\bdescompens[a-z]*|\bhipoglucemi[a-z]*|\bgolpe de calor\b|\binsolacion\b",
    ),
    _rule(
        _E,
        "strong",
        r"\b(?:(?:llev[a-z]*|voy|vamos|van|vayan|vaya|ir|irnos|salimos|salgo|corriendo|camino|rumbo|yendo|"
        r"llegamos|llegando|llego|traigo|traemos|trajimos|nos vamos|me llevan|lo llevan|la llevan)"
        r"(?: (?:a|para|hacia|de|en))?|(?:estoy|estamos|esta|estan|seguimos|sigo) en) (?:la )?guardia\b",
        before_veto=_rx(
            r"\b(?:puedo|podemos|puede|pueden|se puede|hay que|tengo que|tenemos que|conviene|debo|debemos|"
            r"deberia|deberiamos|que)\s*$"
        ),
    ),
    _rule(
        _E,
        "strong",
        r"\b(?:no (?:puede|puedo|pudo)|(?:me|le) cuesta(?: mucho)?) tragar\b",
        requires=_rx(
            r"\bpic[a-z]*|\bpicadura\b|\balergi[a-z]*|\bhinch[a-z]*|\bmani\b|\bcamaron[a-z]*|\bmarisco[a-z]*"
        ),
    ),
    _rule(_E, "health", r"\b(?:ayuda|ayudenme|ayudame|ayudennos|socorro|auxilio)\b"),
    _rule(
        _E,
        "hist",
        r"\bquem[a-z]*<g5>(?:aceite|agua|leche|cafe|te|sopa|olla|pava|mate)<g1>(?:hirviend[a-z]*|caliente)\b",
        r"\bquem[a-z]*<c5>(?:entero|entera|todo el|toda la)\b",
    ),
    _rule(
        _E,
        "weak",
        r"\b(?:dolor|duele)<g2>(?:re |muy |super |mega )?(?:fuerte|fortisimo|intenso|terrible|horrible"
        r"|insoportable|"
        r"muchisimo|demasiado|un monton)\b",
        requires=_rx(
            r"\bno (?:aguanto|soporto)\b|\bvomit[a-z]*|\bdesma[a-z]*|\bsangr[a-z]*|\bfiebre\b|\bgrit[a-z]*"
            r"|\bno (?:puedo|puede) (?:ni )?(?:moverme|moverse|caminar|pararme|pararse|respirar)\b"
        ),
    ),
)

_PRIORITY = (_D, _C, _R, _N, _B, _E)


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class _Context:
    past: bool
    now: bool
    admin: bool
    health: bool
    child: bool


def _negated(before: str) -> bool:
    """Whether the words right before a match (same clause, fillers only) hold a negator."""
    for count, token in enumerate(reversed(before.split())):
        if count >= 6 or token in _CLAUSE_BREAKS:
            return False
        if token in _NEGATORS:
            return True
        if token not in _FILLERS:
            return False
    return False


def _has_child(norm: str) -> bool:
    pregnancy = bool(_PREGNANCY.search(norm))
    for match in _CHILD.finditer(norm):
        word = match.group(0)
        if word.startswith("hij"):
            if pregnancy:
                continue
            age = _ADULT_CHILD.match(norm, match.start())
            if (
                age
                and not re.match(r"\s*(?:mes|meses|dias|semanas)\b", norm[age.end() :])
                and int(age.group(1)) >= 18
            ):
                continue
        return True
    return False


def _allowed(rule: _Rule, ctx: _Context) -> bool:
    if rule.kind == "strong":
        return True
    stale = ctx.past and not ctx.now
    if rule.kind == "hist":
        return not stale
    if rule.kind == "weak":
        return not ((ctx.past or ctx.admin) and not ctx.now)
    if rule.kind == "free":
        return not stale and (ctx.health or not ctx.admin)
    if rule.kind == "health":
        return ctx.health and not ctx.admin and not ctx.past
    raise ValueError(rule.kind)


def _first_match(rule: _Rule, norm: str) -> str | None:
    for match in rule.pattern.finditer(norm):
        snippet = match.group(0).strip()
        before = norm[: match.start()]
        if snippet.split(" ", 1)[0] not in _NEGATORS and _negated(before):
            continue
        if rule.before_veto is not None and rule.before_veto.search(before):
            continue
        return snippet
    return None


def detect_urgency(text: str | None) -> UrgencyMatch | None:
    """The medical urgency a customer message describes, or None for routine talk."""
    if not text or not text.strip():
        return None
    norm, alarm = _normalize(text)
    if not re.search(r"[a-z0-9]", norm):
        return None
    ctx = _Context(
        past=bool(_PAST.search(norm)),
        now=bool(_NOW.search(norm)),
        admin=bool(_ADMIN.search(norm)),
        health=bool(_HEALTH.search(norm)),
        child=_has_child(norm),
    )
    found: dict[str, str] = {}
    for rule in _RULES:
        if rule.category in found:
            continue
        if rule.child_only and not ctx.child:
            continue
        if rule.unless is not None and rule.unless.search(norm):
            continue
        if rule.requires is not None and not rule.requires.search(norm):
            continue
        if not _allowed(rule, ctx):
            continue
        snippet = _first_match(rule, norm)
        if snippet is not None:
            found[rule.category] = snippet
    if not found and alarm and ctx.health and not ctx.admin:
        found[_E] = "alarm emoji"
    return _resolve(found, ctx)


def _resolve(found: dict[str, str], ctx: _Context) -> UrgencyMatch | None:
    if not found:
        return None
    if _S in found:
        return UrgencyMatch(_S, found[_S])
    if ctx.child:
        for category in (_K, _OVERDOSE, _POISON, *_PRIORITY):
            if category in found:
                return UrgencyMatch(_K, found[category])
    if _OVERDOSE in found:
        return UrgencyMatch(_S, found[_OVERDOSE])
    for category in _PRIORITY:
        if category in found:
            return UrgencyMatch(category, found[category])
    if _POISON in found:
        return UrgencyMatch(_E, found[_POISON])
    return None
