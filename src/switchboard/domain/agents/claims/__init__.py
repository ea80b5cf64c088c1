"""Output-safety claim detector: does an agent's reply state a completed action?

Contract (the runtime applies it, this module only detects): a reply that states a
completed action (booked, reserved, cancelled, changed, paid, sent, registered,
confirmed; Spanish or English, any tense that claims it happened) is sent only if
the run made a successful call to a tool whose request method is not GET;
otherwise it is blocked and the run escalates.

`detect_action_claim(reply)` returns the first claim in the reply (in text order)
as an `ActionClaim(action, matched)`, or None. `action` is one of ACTIONS;
`matched` is the normalized snippet that fired. Pure: stdlib only, no I/O.

How it works
------------
1. Normalize: lower case; strip accents except on a word's last vowel (so
   "reservé" stays apart from "reserve" and "quedó" from "quedo", and "sí" from
   "si"); emoji and other symbols become clause breaks; English contractions are
   expanded ("I've" -> "i have", "didn't" -> "did not"); chat abbreviations are
   expanded ("q" -> "que", "u" -> "you", "appt" -> "appointment"); typos in the
   action words are repaired by matching a word that ends like a participle or a
   preterite ("-ado", "-é", "-ed") against the generated forms at edit distance 1
   ("resevé" -> "reservé", "canselé" -> "cancelé", "recieved" -> "received");
   colloquial "-ao" becomes "-ado" ("confirmao"); Portuguese-influenced
   preterites become Spanish ("cancelei" -> "cancelé", "confirmou" -> "confirmó").
2. Keep statements only: sentences are split on . ! ? ; and line breaks. Inside
   a sentence, everything from "¿" on is a question and dropped. A sentence that
   ends in "?" without "¿" is dropped whole when it has one clause or starts with
   a question word; otherwise only its last clause is dropped ("Te reservé el
   turno, te llegó el mail?" keeps the first clause).
3. Mask conditions: from a condition or time marker (si, cuando, una vez, apenas,
   en cuanto, al + infinitive, if, once, when, as soon as, after, until, ...) to
   the next comma the text is replaced by a mask sign, so "Una vez confirmado el
   pago, ..." and "If your appointment was cancelled by us, ..." never fire.
4. Match generated verb forms: Spanish stems x (1sg/1pl/3rd preterite, perfect
   with haber, passive/resultative with fue/ha sido/quedó/queda/está, dejar +
   participle, acabar de / pude / logré / he procedido a + infinitive, se +
   preterite, participle headlines such as "Turno cancelado" or "Confirmado ✅");
   English stems x (I/we + past or present perfect, "I was able to / managed
   to" + base form, passive with is/was/has been, participle headlines such as
   "Payment received" or "Booked you for Friday", "all set", "went through").
5. Reject a match that is negated (no, nunca, ni, sin, not, never, nothing, ...
   within four words before it in the same clause), or, for forms that are also
   present or habitual ("queda confirmado", "is confirmed", "te enviamos",
   headlines), when a mask sign comes before it or later in its clause, or the
   clause carries a habitual marker (siempre, automáticamente, 24 h antes,
   within 5 days, the day before, every, de lunes a viernes, ...), or the subject
   is generic ("Refunds are processed", "Every booking is confirmed"), or, for a
   passive of a verb whose active form needs a certain object ("guardado",
   "bloqueado", "removed"), the stated subject is not that object ("Tu tarjeta
   fue bloqueada", "Your card was removed").

Modules: ``normalize`` (step 1), ``statements`` (step 2, 3 and the clause
around a match), ``lexicon``/``spanish``/``english`` (the nouns and verb forms
of step 4), ``rules`` (the step-4 patterns), ``blockers`` (the step-5 vetoes),
``checks`` (reading a candidate match into an action), ``detector`` (the entry
point and ``ActionClaim``).

Judgement calls
---------------
- The customer's own past actions do not fire: second-person active verbs
  ("Veo que ya pagaste", "cancelaste", "te registraste", "you've already paid",
  "you booked online") and formal third-person active verbs without "se"
  ("Usted ya reservó por la web") report what the customer did, usually read by a
  GET lookup; blocking them would escalate legitimate lookups. Passive or
  resultative statements about the customer's things do fire, whoever did the
  action ("Tu pago fue acreditado", "Payment received", "Quedaste registrado",
  "You've been charged"), because the reader takes them as the business acting.
- State reports phrased with a completed participle fire even after a lookup
  ("Tu turno está confirmado", as the contract lists); state reports phrased as
  possession or time do not ("Tenés turno el jueves", "Your next appointment is
  on Friday"). "Ya tenés turno reservado" fires (participle).
- Present-tense performatives that enact the action fire: "Te confirmo tu
  turno para el lunes", "Te lo dejo reservado hasta mañana". "Te confirmo que
  abrimos a las 9" (confirming information) and "te confirmo en un rato" do not;
  neither does a past "confirm that ...": "Le confirmamos que su turno quedó
  agendado" reports what the clause after it says (booked).
- Present-tense sending inside the message is not a claim: "Te paso el link:",
  "Te dejo el link", "Te mando el presupuesto", "I'm sending you the options".
  Only past/perfect sending fires ("Te envié", "I've sent", "Se envió").
- Spanish 1st-person plural preterite is also present ("enviamos",
  "confirmamos"): it fires only with "ya"/"recién", a possessive right after
  ("Cancelamos tu reserva"), an object pronoun plus an object or a list/slot
  ("Te enviamos el link", "Te inscribimos en el curso"), or one occasion or the
  customer's request after it ("Cancelamos la consulta del jueves", "Anotamos a
  Rocco para el sábado", "Anulamos el pedido como pediste") unless the object is
  a bare plural ("Tomamos reservas para el sábado" is policy), and not with a
  habitual marker ("Te enviamos un recordatorio el día anterior", "te
  confirmamos por mail" and "Enviamos del lunes al viernes" do not fire).
  "Recibimos la transferencia" (definite payment object) fires; "Recibimos
  transferencias" does not. "Cobramos la seña con tu tarjeta" does not fire:
  it reads the same as the policy "we charge the deposit to your card".
- An unaccented "-e" form is also subjunctive or formal imperative ("reserve",
  "cancele"): it fires only with an object pronoun or "ya"/"yo"/"recién" before
  it and no "que"/"para"/"cuando" trigger; the accented form ("Cancelé tu
  turno") fires alone. An "-í" form of an -ir verb is also the voseo imperative
  ("Inscribí a tu hijo", "Escribí CANCELAR"): it needs an object pronoun or
  "ya", except "recibí" with a payment object.
- Questions never fire, even when they presuppose an action ("¿Te llegó el
  mail que te envié?", "Did you get the receipt I emailed?").
- Availability is not a claim: "Ese horario ya está reservado", "El sábado ya
  está todo reservado", "That slot is already booked", "We're fully booked",
  "reservado por otra persona".
- Refunds, charges and received payments map to "paid"; shipping and
  dispatching map to "sent"; unsubscribing and "dar de baja" map to
  "cancelled"; "dar de alta", waiting lists and account creation map to
  "registered"; "all set"/"todo listo" and bare "Confirmado" map to
  "confirmed"; a payment noun turns confirmed/processed/registered/received
  into "paid" ("Pago confirmado", "Ya registré tu pago"), and "registrado" takes
  the action of whatever was registered ("Su cita ha quedado registrada" is
  booked, "Tu cancelación quedó registrada" cancelled). "Ya está pago" is paid;
  "Tu pedido salió hoy", "Tu paquete está en camino" and "Your order is on its
  way" are sent ("El pedido salió caro" is not). Approving an enrolment or a
  request is a claim ("Su inscripción fue aprobada" is registered).
- "Anoté" is "booked" ("Te anoté para el martes") unless a list, course or
  class follows ("Te anoté en la lista de espera" is "registered"). A bare
  "Anotado!" means "noted" and does not fire; "Anotado para el martes" does.
- Accomplishment modals are claims: "Pude reservar", "Logré reprogramar", "He
  procedido a cancelar", "I was able to book" ("No pude ..." is negated).
- Light verbs take their action from the noun ("Hice la reserva" booked, "Se
  realizó el cargo" paid, "Hicimos el cambio" changed, "Your reservation was
  made" booked), and so does "proceder a" ("Se ha procedido a la cancelación de
  su turno" cancelled); a request handled by a light verb takes the action it
  asks for ("Su solicitud de reprogramación fue gestionada" changed), while a
  request received is not the action ("Solicitud de reembolso recibida" does
  not fire). Without a known noun they do not fire ("Tomé nota").
- Passives need a subject that is the customer's ("tu/su/your/you/it/that",
  a booking/payment/order noun, "ya"/"todo", or no subject at all), so "Los
  precios fueron actualizados" and "El estacionamiento está reservado para
  clientes" do not fire, while "La clase fue cancelada" does. A restriction to a
  kind of people is not a booking: "Reserved for members only", "Reservado para
  socios".
- "Marcar" is booked with a slot (Portuguese-influenced "Ya marqué tu
  horario", "Tu horario fue marcado"); "Marcado como leído" does not fire. A bare
  headline of a verb that needs an object does not fire ("Guardado!").
- Bare "Listo", "Hecho", "Done" and "Ok" do not fire; they need an action word
  ("Hecho 👍 ya te cancelé el turno" fires).
- When a reply claims several actions, the first one in the text is reported.
"""

from switchboard.domain.agents.claims.detector import ACTIONS, ActionClaim, detect_action_claim

__all__ = ["ACTIONS", "ActionClaim", "detect_action_claim"]
