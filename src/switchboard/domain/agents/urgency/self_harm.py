"""Suicide and self-harm, overdose by quantity and ingestion of toxic products."""

from __future__ import annotations

from switchboard.domain.agents.urgency.lexicon import PILLS, TOXIC
from switchboard.domain.agents.urgency.negatives import HUMOR
from switchboard.domain.agents.urgency.patterns import OVERDOSE, POISON, SUICIDE, Rule, rule, rx

# Despair that, with a word about dying or ceasing to exist, reads as suicidal ideation.
_DESPAIR = rx(
    r"\bno (?:aguanto|soporto|puedo|doy) mas\b|\b(?:cansad|hart)[oa] de (?:todo|todos|sufrir|luchar)\b|\bsin salida\b"
    r"|\bnadie me (?:quiere|necesita|extranaria|entiende|va a extranar)\b|\bsoy una carga\b|\bno sirvo para nada\b"
    r"|\b(?:nada|la vida|mi vida) (?:tiene|tenia) sentido\b|\bno (?:le )?(?:veo|encuentro) (?:sentido|salida)\b"
    r"|\bestoy (?:desesperad[oa]|destruid[oa]|vaci[oa])\b|\bya no puedo (?:mas|seguir)\b|\bno tengo (?:a )?nadie\b"
    r"|\b(?:ya no|nada) me importa(?: nada)?\b|\bgracias por todo\b|\bperdon(?:en)? por todo\b|\bcuiden a\b"
)

RULES: tuple[Rule, ...] = (
    rule(SUICIDE, "strong", r"\bsuicid[a-z]*", unless=rx(r"\bprevencion del suicidio|\bcharlas?\b|\btaller")),
    rule(
        SUICIDE,
        "strong",
        # "me quiere matar" is someone else's threat, not self-harm: the person of the verb follows the pronoun
        r"\b(?:me (?:quiero|quisiera|queria|pienso|intente|trate de|trato de|quise|deseo|tengo ganas de|dan ganas de)"
        r"|se (?:quiere|quiera|quisiera|queria|piensa|penso|intento|trato de|quiso|desea|dan ganas de)) (?:matar|suicidar"
        r"|ahorcar|colgar|"
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
        r"para siempre\b|\bdormir(?:me)? y no despertar|\bno despertar(?:me)? (?:nunca )?mas\b"
        r"|\b(?:dormir(?:me|se)?|descansar|desaparecer|irme|irse|apagarme) para siempre\b"
        r"|\bno (?:tengo|tiene) (?:mas )?fuerzas? para (?:seguir|vivir|continuar|seguir viviendo)\b"
        r"|\bno (?:me|la|lo|nos) (?:van|vas|va) a (?:ver|volver a ver) (?:nunca )?mas\b",
        r"\b(?:agarrar|buscar|sacar|usar|cargar|conseguir) (?:el|un|la|una) (?:arma|revolver|pistola|escopeta)\b",
        r"\bno (?:quiero|quiere|queria) (?:estar|seguir) (?:mas )?(?:en este mundo|viv[oa]|aca|aqui|en esta vida)\b|\b(?:mejor|preferiria|prefiero|quisiera"
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
        r"\b(?:tengo|tiene) (?:el|un|la|una) (?:arma|revolver|pistola|escopeta|cuchillo|navaja|cuchilla|gillete"
        r"|soga)<g2>(?:en la mano|cargad[oa]|en el cuello|apuntando)\b",
        r"\b(?:hoy|esta noche|manana|ya|ahora) (?:se )?(?:acaba|termina|termino|acabo) todo\b"
        r"|\bse (?:acaba|termina) todo (?:hoy|esta noche|ya|ahora)\b",
        r"\bno (?:los |las |te |lo |la |les )?(?:voy|va) a (?:molestar|joder|ser (?:una )?carga) (?:mas|nunca mas)\b"
        r"|\b(?:ya no|no quiero) (?:voy a )?ser (?:una )?carga\b|\bsoy una carga para\b"
        r"|\bcartas? (?:de despedida|para mis hijos|a mis hijos|para mi familia|para todos|despidiendome)\b",
        r"\bcarta de despedida\b|\bsi (?:yo )?no (?:estuviera|existiera|hubiera nacido)\b|\b(?:mejor"
        r"|mas facil)<g3>sin mi\b",
        r"\bno vale la pena (?:vivir|seguir)\b|\b(?:cansad|hart)[oa] de vivir\b"
        r"|\bno tiene (?:caso|sentido) (?:vivir|seguir|seguir viviendo)\b|\bpara que (?:vivir|seguir viviendo)\b"
        r"|\b(?:pienso|piensa|pensando|pensar) (?:mucho |todo el tiempo |siempre )?en (?:la muerte|morir(?:me|se)?)\b"
        r"|\b(?:habla|hablando|hablo|dice|escribe) (?:mucho |siempre )?de (?:morir(?:se)?|la muerte|matarse|suicid[a-z]*)\b"
        r"|\b(?:juntando|acumulando|guardando|junte|guarde) (?:las |unas |muchas )?pastillas\b"
        r"|\bcarta (?:escrita|lista)\b(?= ?(?:$|\.|,|y\b))"
        r"|\b(?:me|se) (?:esta|estoy|estaba|sigue|sigo) cortando\b(?! (?:el|la|los|las|mi|su|un|una|con|de)\b)"
        r"|\b(?:me|se) (?:corto|lastimo|quemo|golpeo|pego) (?:cuando (?:estoy|esta|me siento|se siente) (?:mal|triste"
        r"|angustiad[oa]|sol[oa])|para (?:no sentir|sentir algo|calmar|aliviar|desahogar))\b",
        r"\bno tengo (?:ganas|razones|motivos) (?:de|para) vivir\b",
        r"\b(?:mejor|preferiria|prefiero) (?:estar |estaria |estoy )?muert[oa]\b|\bojala me muera\b",
        r"\bsi me muero (?:mejor|nadie|da igual|no importa|es mejor)\b|\bmejor (?:si )?me muero\b",
        r"\bnadie me extranaria\b|\bdesaparecer de este mundo\b|\bquitar(?:me|se) la vida\b",
        r"\b(?:quiero|quiere|ganas de|quisiera|necesito|deseo) desaparecer\b"
        r"(?! (?:las|los|el|la|unas|unos|mis|esta|este|esa|ese|de (?:aca|aqui|este trabajo|esta ciudad))\b)",
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
    rule(
        SUICIDE,
        "strong",
        r"\b(?:matarme|suicidarme|ahorcarme|colgarme|quitarme la vida|envenenarme)\b(?! (?:de|a|con) )",
        before_veto=rx(
            r"\b(?:va|van|vas|iba|iban|quiere|quieren|queria|querian|podria|podrian|intento|intentaron"
            r"|amenazo|"
            r"amenaza) (?:a )?$"
        ),
        unless=HUMOR,
    ),
    # Indirect intent: "pensando en hacer una locura", "tengo miedo de hacerme algo".
    rule(
        SUICIDE,
        "strong",
        r"\b(?:pensando en|pienso en|piensa en|voy a|va a|quiero|quiere|ganas de|a punto de|estoy por|esta por"
        r"|miedo de|capaz que|me dan ganas de|le dan ganas de) (?:hacer|cometer)(?:me|se)? (?:una |alguna )?"
        r"(?:locura|tonteria|estupidez|barbaridad|idiotez|burrada)\b"
        r"|\b(?:miedo de|ganas de|voy a|va a|quiero|pienso|por) hacer(?:me|se) algo\b",
    ),
    # A farewell note, or shutting oneself in with the means.
    rule(
        SUICIDE,
        "strong",
        r"\b(?:dejo|dejaba|escribio|escribi|encontre|encontramos|mando|me mando) (?:una )?(?:carta|nota"
        r"|mensaje|audio) (?:de despedida|despidiendose|diciendo adios|pidiendo perdon)\b"
        r"|\bse (?:encerro|esta encerrando|encerraba)\b",
        requires=rx(
            r"\bcarta\b|\bnota\b|\bdespid[a-z]*|\bsoga\b|\bpastillas\b|\bremedios\b|\bnavaja\b"
            r"|\bcuchillo\b|\barma\b|\bpistola\b|\bveneno\b|\bgillete\b|\bcuchilla\b|\bcable\b"
        ),
    ),
    rule(
        SUICIDE,
        "strong",
        r"\bkill (?:my|him|her|them)sel(?:f|ves)\b|\bwan(?:t|ts|na|ted)(?: to)? die\b|\bend (?:my|his|her) life\b"
        r"|\bself ?harm[a-z]*|\bhurt(?:ing)? (?:my|him|her)self\b|\bcutting (?:my|him|her)self\b",
    ),
    # Preparations and farewells: "tengo la soga lista", "se va a despedir de todos".
    rule(
        SUICIDE,
        "strong",
        r"\b(?:soga|cuerda|pastillas|arma|cuchilla|navaja|veneno|gillete)s? (?:list[oa]s?|preparad[oa]s?"
        r"|juntad[oa]s?|guardad[oa]s?|escondid[oa]s?)\b|\bcompre (?:una )?(?:soga|cuerda|veneno)\b"
        r"|\bdespedir(?:se|me|te)? de (?:todos|todo el mundo|ustedes|mi familia|su familia|la vida)\b"
        r"|\b(?:me|se) (?:despido|despidio|esta despidiendo|estoy despidiendo) de (?:todos|todo el mundo|ustedes"
        r"|la vida)\b",
    ),
    rule(
        SUICIDE,
        "strong",
        r"\b(?:ganas de|quiero|quiere|voy a|va a|pienso en|piensa en|pensando en|necesito|necesidad de"
        r"|impulso de) (?:cortarme|cortarse|lastimarme|lastimarse|quemarme|quemarse|golpearme|golpearse)\b"
        r"(?! (?:el|la|los|las|mi|su) (?:pelo|unas|cabello|flequillo|barba|pelito|puntas|dedo))",
    ),
    rule(
        SUICIDE,
        "strong",
        r"\b(?:desaparecer|dejar de (?:existir|vivir|sufrir)|no (?:existir|estar mas)|ya no (?:voy a|quiero) estar"
        r"|morir(?:me)?|muert[oa]|la muerte|vivir|seguir viviendo|no despertar(?:me)?|que (?:esto|todo) (?:termine"
        r"|se acabe)|(?:acabar|terminar) con (?:esto|todo)|(?:tengo|lo tengo) todo (?:planead|pensad|preparad|decidid)[oa]"
        r"|ya (?:lo )?decidi|me despido|adios a todos|no sigo mas|no voy a seguir)\b<idiom>",
        requires=_DESPAIR,
    ),
    rule(OVERDOSE, "strong", r"\bsobre ?dosis\b|\boverdos[a-z]*"),
    rule(
        OVERDOSE,
        "strong",
        r"\b(?:tome|tomo|trague|trago|tomaron)<g5>(?:botiquin|todo lo que (?:habia|tenia|encontre"
        r"|encontro))\b",
    ),
    rule(
        OVERDOSE,
        "strong",
        r"\b(?:me|se) (?:pase|paso|excedi|excedio|pasaste)<g2>(?:pastillas|remedios|medicamentos|dosis|"
        r"medicacion|clonazepam|rivotril|insulina)\b",
    ),
    rule(
        SUICIDE,
        "strong",
        r"\b(?:a proposito|adrede|para no despertar|para morir|para dormir para siempre)\b",
        requires=PILLS,
    ),
    rule(
        SUICIDE,
        "strong",
        r"\b(?:voy a|va a|quiero|quiere|pienso|piensa|me voy a|se va a|estoy por|esta por|a punto de) "
        r"(?:saltar|tirarme|tirarse|arrojarme|arrojarse|lanzarme|lanzarse|aventarme|aventarse|botarme|botarse)\b"
        r"|\b(?:me|se) (?:voy a|va a|quiero|quiere|iba a) (?:tirar|aventar|arrojar|lanzar|botar)\b",
        requires=rx(
            r"\b(?:terraza|balcon|puente|techo|ventana|edificio|vias|tren|azotea|piso|precipicio"
            r"|acantilado)\b"
        ),
    ),
    rule(
        OVERDOSE,
        "strong",
        r"\b(?:tome|tomo|tomaron|tomaste|trague|trago|ingeri|ingirio|comi|comio|bebio|bebi)<g1>(?:todas las|"
        r"todos los|toda la|todo el|un blister|una caja|un frasco|una tira|un monton de|muchas|muchos|varias|"
        r"demasiad[a-z]*|\d{2,}|un pastillero|la caja|el frasco|el blister|una caja entera"
        r"|un blister entero)\b"
        r"(?!<g3>(?:del tratamiento|que me (?:recet|indic|dio|dijo)|como (?:me )?(?:dijo|indic)))",
        requires=PILLS,
    ),
    rule(
        POISON,
        "strong",
        r"\b(?:tom[a-z]*|trag[a-z]*|bebi[a-z]*|bebe|comi[a-z]*|ingiri[a-z]*|ingeri[a-z]*|chup[a-z]*)<g3>"
        + TOXIC
        + r"\b",
    ),
)
