"""Explicit emergency words, ambulance, guardia, accidents, poisoning, anaphylaxis, burns, ..."""

from __future__ import annotations

from switchboard.domain.agents.urgency.lexicon import TOXIC
from switchboard.domain.agents.urgency.negatives import PETS
from switchboard.domain.agents.urgency.patterns import EMERGENCY, Rule, rule, rx

RULES: tuple[Rule, ...] = (
    rule(
        EMERGENCY,
        "free",
        r"\be[mn]er[gj][ei]n[cs]i[a-z]*|\bur[gj]en[cs]i[a-z]*|\bur[gj]ente[a-z]*|\bur[gj]e\b|\burgentisimo\b",
        r"\ba[mn]bula[nm][cs]i[a-z]*",
        unless=rx(PETS + r"|\bemergencias (?:medicas )?privadas\b"),
        before_veto=rx(
            r"\b(?:servicio|servicios|consulta|consultas|salida|reunion|cobertura|kit|plan|area|sector|sala|"
            r"boton|puerta|escalera|turno|turnos|telefono|numero|linea|medicos?|departamento|tratamiento|"
            r"cirugia|caso|casos|solo|sola|guardia|odontologia|odontologica|odontologo|dentista|atencion"
            r"|atender|"
            r"atienden|atiende|pediatria|clinica|medico|traslados?|empresa|empresas|movil|moviles|chofer|"
            r"curso|cursos|capacitacion) (?:de|para|por|en) (?:las |la |una |un )?$"
        ),
    ),
    rule(
        EMERGENCY,
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
        r"\bmonoxido\b|\bgas toxico\b|\b(?:inhal|respir|trag|aspir)[a-z]*<g2>humo\b|\bse (?:esta |estan )?(?:quemando|incendiando) "
        r"(?:la|el|mi|su) (?:casa|departamento|depto|edificio|cocina|habitacion|pieza)\b|\bincendio\b"
        r"(?! (?:forestal )?(?:de|del) (?:ano|mes|la semana) pasad[oa])",
        rf"\b(?:tom[a-z]*|trag[a-z]*|bebi[a-z]*|comi[a-z]*|ingiri[a-z]*|ingeri[a-z]*)<g3>{TOXIC}\b",
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
        r"|\bno (?:se |me )?(?:puede|puedo|pudo|logra|logro) (?:levantar|mover|incorporar|parar|poner de pie)"
        r"(?:se|me)?\b"
        r"(?! (?:a|para|el|la|los|las|mi|su|un|una|del|de)\b)|\bno puede moverse\b",
        r"\bse cayo (?:de|del|desde)<g2>(?:techo|escalera|andamio|altura|terraza|arbol|balcon|ventana|moto|"
        r"caballo|segundo piso|primer piso|tercer piso|un piso|bici[a-z]*)\b"
        r"|\b(?:esta|quedo) tirad[oa] (?:en|sobre) (?:el piso|la calle|el suelo|la vereda|el bano)\b"
        r"|\btirad[oa] en el (?:piso|suelo)\b",
        r"\bcontracciones<g2>(?:seguidas|cada \d+|muy fuertes|fuertisimas)\b|\brompi[a-z]*<g1>(?:la )?bolsa\b"
        r"|\brompi[a-z]*<g1>(?:la )?fuente\b|\btrabajo de parto\b|\bestoy pariendo\b|\besta naciendo\b"
        r"|\b(?:esta|estoy|entro|entre|empezo|empece) (?:de|en|con el|con) parto\b|\bdando a luz\b|\bcoronando\b"
        r"|\b(?:se (?:le )?ve|asoma|sale|salio) la cabe(?:za|cita) del (?:bebe|nene|nino)\b"
        r"|\bse (?:me|le) (?:rompio|rompe) (?:la )?(?:bolsa|fuente)\b",
        r"\bexplosion\b(?! de (?:risa|alegria|emocion))|\bexploto\b(?! (?:la|mi) (?:cabeza|cerebro|mente|bandeja|"
        r"celu[a-z]*|telefono|grupo)\b)|\b(?:esta|quedo|estan) (?:todo |toda |muy |re )?quemad[oa]s?\b",
        r"\b(?:arranc[a-z]*|amput[a-z]*|cercen[a-z]*)<g3>(?:dedos?|mano|brazo|pierna|pie|oreja)\b"
        r"|\bse (?:volo|arranco|amputo) (?:un|el|dos|los|tres) dedos?\b"
        r"|\b(?:dedos?|mano|oreja)<c5>(?:se (?:lo|la|los) )?(?:arranc|amput|cercen)[a-z]*",
        r"\bcarne viva\b|\b(?:lo|la|me|nos|le|les) (?:agarro|piso|llevo puesto|llevo por delante|embistio) "
        r"(?:un|una|el|la) (?:auto|coche|carro|camion|colectivo|moto|bondi|micro|tren|camioneta|taxi)\b",
        r"\belectrocut[a-z]*|\bdescarga electrica\b|\b(?:me|le|lo|la) (?:dio|agarro|paso) (?:la )?corriente\b"
        r"|\bcorrientazo\b",
    ),
    rule(
        EMERGENCY,
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
    rule(
        EMERGENCY,
        "strong",
        r"\b(?:(?:llev[a-z]*|voy|vamos|van|vayan|vaya|ir|irnos|salimos|salgo|corriendo|camino|rumbo|yendo|"
        r"llegamos|llegando|llego|traigo|traemos|trajimos|nos vamos|me llevan|lo llevan|la llevan)"
        r"(?: (?:a|para|hacia|de|en))?|(?:estoy|estamos|esta|estan|seguimos|sigo) en) (?:la )?guardia\b",
        before_veto=rx(
            r"\b(?:puedo|podemos|puede|pueden|se puede|hay que|tengo que|tenemos que|conviene|debo|debemos|"
            r"deberia|deberiamos|que)\s*$"
        ),
    ),
    rule(
        EMERGENCY,
        "strong",
        r"\b(?:no (?:puede|puedo|pudo)|(?:me|le) cuesta(?: mucho)?) tragar\b",
        requires=rx(
            r"\bpic[a-z]*|\bpicadura\b|\balergi[a-z]*|\bhinch[a-z]*|\bmani\b|\bcamaron[a-z]*|\bmarisco[a-z]*"
        ),
    ),
    rule(EMERGENCY, "health", r"\b(?:ayuda|ayudenme|ayudame|ayudennos|socorro|auxilio)\b"),
    rule(
        EMERGENCY,
        "hist",
        r"\bquem[a-z]*<g5>(?:aceite|agua|leche|cafe|te|sopa|olla|pava|mate)<g1>(?:hirviend[a-z]*|caliente)\b",
        r"\bquem[a-z]*<c5>(?:entero|entera|todo el|toda la)\b",
    ),
    rule(
        EMERGENCY,
        "weak",
        r"\b(?:dolor|duele)<g2>(?:re |muy |super |mega )?(?:fuerte|fortisimo|intenso|terrible|horrible"
        r"|insoportable|"
        r"muchisimo|demasiado|un monton)\b",
        requires=rx(
            r"\bno (?:aguanto|soporto)\b|\bvomit[a-z]*|\bdesma[a-z]*|\bsangr[a-z]*|\bfiebre\b|\bgrit[a-z]*"
            r"|\bno (?:puedo|puede) (?:ni )?(?:moverme|moverse|caminar|pararme|pararse|respirar)\b"
        ),
    ),
)
