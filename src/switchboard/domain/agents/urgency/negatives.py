"""What discounts a match: negation, past / resolved framing, administrative framing, jokes, non-humans."""

from __future__ import annotations

from switchboard.domain.agents.urgency.patterns import rx

NEGATORS = frozenset({"no", "ni", "sin", "nunca", "tampoco", "nada", "jamas"})
FILLERS = frozenset(
    "tengo tiene tienen tenia tuvo tuve tenemos hay habia hubo es era fue sea son le me se te lo la los las "
    "el un una unos unas mas muy mucho mucha tanto tanta tan ya esta estoy estaba estamos estan siente "
    "siento sentia senti presenta presento noto note nota creo que parece parecia con de del al a nos "
    "les ningun ninguna ha he han hemos tenido sido habido sentido estado realmente gran "
    "parecio ningun nunca aun todavia".split()
)
CLAUSE_BREAKS = frozenset({".", ",", "pero", "aunque", "sino", "y", "o"})


def negated(before: str) -> bool:
    """Whether the words right before a match (same clause, fillers only) hold a negator."""
    for count, token in enumerate(reversed(before.split())):
        if count >= 6 or token in CLAUSE_BREAKS:
            return False
        if token in NEGATORS:
            return True
        if token not in FILLERS:
            return False
    return False


PAST = rx(
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
    r"|\bya (?:cicatriz|san[oa]|se (?:le |me )?cur|esta curad|se (?:le |me )?cerr)[a-z]*\b|\bya paso\b|\bse recupero\b|\bquedo bien\b|\bsalio todo bien\b|\btodos bien\b|\bestamos bien\b"
    r"|\bnada grave\b|\bfue leve\b|\b(?:era|fue|eran) (?:de los nervios|muscular|ansiedad|un gas|gases|estres"
    r"|"
    r"psicologico|nervios|contractura|reflujo)\b|\bpero (?:ya )?(?:esta|estoy|anda|sigue) (?:re |muy |super "
    r"|perfectamente )?bien\b"
    r"|\b(?:esta|anda) (?:re|muy|super) bien\b|\b(?:juega|jugando|come) (?:normal|bien)\b|\bya no (?:tiene"
    r"|tengo|le|me|hay)\b|\besta jugando\b"
)

ADMIN = rx(
    r"\b(?:turnos?|citas?|recetas?|certificados?|orden(?:es)?|facturas?|autorizacion[a-z]*|"
    r"presupuestos?|reintegros?|formularios?|carnet|control(?:es)?|chequeo|apto|resultados?|informes?|"
    r"historia clinica|obra social|prepaga|art|horarios?|abre|abren|cierra|cierran|atiende|atienden|"
    r"cuanto (?:sale|cuesta|es|cobran|tarda)|precios?|cubre|cobertura|plan|trabajan con|cobr[a-z]+|pago|"
    r"pague|pagar|plata|tramites?|banco|reunion|copia|mail|estudios?|traslados?|programad[oa]s?|vacunas?"
    r"|revision|medicacion|yeso|"
    r"oculista|oftalmolog[a-z]*|anteojos|lentes|kinesiolog[a-z]*|seguro|trabajo|rehabilitacion|hacen"
    r"|realizan|servicios?|especialistas?|especialidad|fonoaudiolog[a-z]*|psicolog[a-z]*|nutricionista|geriatra)\b"
)

PETS = (
    r"\b(?:perr[a-z]*|gat[oa]s?|gatit[a-z]*|mascota[a-z]*|veterinari[a-z]*|cachorr[a-z]*|loro|pajar[a-z]*|"
    r"pez|peces|conejo|hamster|tortuga|caballo)\b"
)
NONHUMAN = rx(
    PETS + r"|\b(?:planta[a-z]*|flor(?:es)?|bateria|celu[a-z]*|telefono|wifi|internet|compu[a-z]*|"
    r"notebook|pantalla|luz|vela|fuego|motor|senal|auto|coche|carro)\b"
)
COMMUNICATION = rx(
    r"\b(?:mail|mails|mensajes?|telefono|whatsapp|wsp|escribo|escribi|escribiendo|secretaria|recepcion|"
    r"nadie|consultorio|llamadas|correo|el numero|linea|sistema|pagina|web|app)\b"
)
HUMOR = rx(r"\b(?:ja|je|ji)(?:ja|je|ji)+\b|\bjaj\b|\bjsjs[a-z]*|\blol\b|\bxd\b")
# A hypothetical frame ("¿qué hago si se atraganta?", "en caso de que convulsione", "por si acaso") before
# a match in the same sentence: a question about what to do, not a report. Vetoes all but self-harm
# unless the message carries an acute marker.
HYPOTHETICAL = rx(
    r"\b(?:que|como) (?:hago|hacemos|hacer|se hace|debo hacer|deberia hacer|hay que hacer|tengo que hacer|"
    r"actuar|actuo|se actua|reacciono|le doy|se le da)(?: [a-z]+){0,2} (?:si|cuando|en caso)\b"
    r"|\ben caso (?:de|que)\b|\bpor si (?:acaso|le|me|se|llega|algun|alguna|tiene|pasa)\b|\bsi alguna vez\b"
    r"|\bprimeros auxilios\b|\b(?:curso|taller|charla|capacitacion) (?:de|sobre|para)\b"
)
# "casi me da un infarto con la factura", "casi me ahogo de la risa": figurative, or a scare that did not
# happen, right before a match ("casi no puede respirar" starts with its own negation and is kept).
ALMOST = rx(r"\bcasi(?: [a-z]+){0,3} $")
# A service or a topic named right before a keyword: "¿la consulta por violencia de género es gratuita?",
# "¿tienen tratamiento para la epilepsia?", "taller de primeros auxilios".
SERVICE_BEFORE = rx(
    r"\b(?:consultas?|turnos?|tratamientos?|atencion|especialistas?|programas?|servicios?|talleres?|charlas?"
    r"|grupos?|cobertura|unidad|centro|linea|protocolos?|cursos?|prevencion|medicos?|doctora?|vacunas?"
    r"|seguro|estudios?|chequeos?|controles?|sintomas|signos|senales|causas|riesgos?|informacion|tipos)"
    r" (?:por|de|para|sobre|en|contra|del) (?:la |el |los |las |un |una )?$"
)
# Long-standing conditions that explain confusion or weakness without an acute change.
CHRONIC = rx(
    r"\b(?:alzheimer|demencia|senil|parkinson|a veces|siempre|cada tanto|de vez en cuando|desde hace (?:anos"
    r"|meses))\b"
)
# A message about a pet ("mi perro convulsionó, ¿tienen veterinario?"): no medical emergency for the clinic
# unless a person is named or was bitten / attacked.
ABOUT_A_PET = rx(
    r"^(?:[a-z]+ ){0,3}(?:mi|el|la|nuestr[oa]|su) (?:perr[oa]|perrit[oa]|gat[oa]|gatit[oa]|mascota|cachorr[oa]"
    r"|loro|conejo|hamster)\b|\bveterinari[a-z]*"
)
PERSON_HURT = rx(
    r"\b(?:hij[oa]s?|papa|mama|padre|madre|abuel[oa]|espos[oa]|marido|mujer|herman[oa]|nen[ea]|bebe|vecin[oa]"
    r"|tio|tia|novi[oa]|suegr[oa]|sobrin[oa]|niet[oa])\b|\bmord[a-z]*|\batac[a-z]*|\baran[a-z]*"
)
