"""Marker families for decision extraction, per language (English, Serbian, German, Spanish).

Every pattern runs on folded text (lower case, diacritics removed: "odlučili" -> "odlucili", "Lösung" ->
"losung"), so each family lists one spelling per word. The families name *kinds* of evidence -- a label, a
choice verb, a first-person commitment, an exploratory step, a hedge -- and :mod:`engine.capture.decision_features`
turns each into one feature whose weight is fit on labelled responses; no pattern here decides anything alone.
"""

from __future__ import annotations

import re

from engine.capture.language.phrases import Phrases


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())


def _alt(*groups: str) -> str:
    """One regex alternation from whitespace-separated word lists (``_`` stands for a space)."""
    return "|".join(w.replace("_", " ") for group in groups for w in group.split())


# --- labels ("Decision: ...") ---------------------------------------------------------------------------

_DECISION_LABELS = _alt(
    "decision final_decision decided chosen choice verdict outcome resolution final_call conclusion ruling "
    "agreed agreement settled bottom_line the_call",
    "odluka odluceno izbor izabrano zakljucak dogovor dogovoreno konacno presuda",
    "entscheidung entschieden ergebnis beschluss fazit urteil gewahlt",
    "decision decidido elegido resultado conclusion veredicto acuerdo",
)
_PROPOSAL_LABELS = _alt(
    "proposal proposed_change recommendation my_recommendation suggestion plan the_plan approach fix the_fix "
    "solution strategy direction next_move",
    "predlog preporuka plan pristup resenje strategija",
    "vorschlag empfehlung plan ansatz losung strategie vorgehen",
    "propuesta recomendacion sugerencia plan enfoque solucion estrategia",
)
_ANALYSIS_LABELS = _alt(
    "root_cause cause why context background problem issue note status summary timeline cost costs risk risks "
    "pros cons impact update tldr short_version question open_question options option alternatives caveat "
    "downside upside tradeoff trade-off estimate numbers result results finding findings symptom observation",
    "uzrok razlog kontekst problem napomena status rezime pitanje opcije rizik cena troskovi",
    "ursache grund kontext problem hinweis status zusammenfassung frage optionen risiko kosten",
    "causa motivo contexto problema nota estado resumen pregunta opciones riesgo coste costes",
)
_QUALIFIER = r"(?:(?:here'?s |here is |this is |evo |so |ok,? |okay,? )?(?:(?:my|our|the|final|moj|moja|nas|nasa|" \
    r"unser|unsere|der|die|el|la|mi|nuestra|nuestro) )?)"
LABEL = re.compile(r"^" + _QUALIFIER + r"(?P<label>[^:]{1,40}?)\s*:\s*(?P<rest>.*)$")
"""``Label: rest`` at the start of a cleaned line, with the label's leading qualifiers dropped."""
DECISION_LABEL = re.compile(r"^(?:" + _DECISION_LABELS + r")$")
PROPOSAL_LABEL = re.compile(r"^(?:" + _PROPOSAL_LABELS + r")$")
ANALYSIS_LABEL = re.compile(r"^(?:" + _ANALYSIS_LABELS + r")$")

# A line ending in ":" that introduces a list: what kind of list follows.
PLAN_HEADER = re.compile(
    r"\b(?:plan\w*|steps?|order|sequence|redosled|koraci|korak|vorgehen|schritte|reihenfolge|pasos|orden"
    r"|what i'?ll do|here'?s how|how i'?d do it|rollout|cutover|concretely|konkretno|predlazem)\b"
)
OPTIONS_HEADER = re.compile(
    r"\b(?:options?|alternatives?|candidates?|choices|opcij\w*|varijant\w*|mogucnosti|optionen|varianten"
    r"|kandidaten|opcion\w*|alternativ\w*|compared|uporedi\w*|verglichen|comparado|shortlist\w*|suspects?"
    r"|things (?:that|which) (?:did )?change\w*|what (?:has )?changed|sta se promenilo|was sich .* geandert)\b"
)
REPORT_HEADER = re.compile(
    r"\b(?:summary|done|finished|what went in|what changed|status|recap|found|current state|where we are"
    r"|trenutn\w*|stanje|status\w*|zusammenfassung|stand|resumen|estado|timeline|vremenski)\b"
)

# --- decision language ----------------------------------------------------------------------------------

CHOICE = re.compile(
    r"^(?:(?:so|ok|okay|then|finally|in the end),? )?(?:(?:(?:i|we)(?:'ve| have|'m| am|'re| are|'ll| will)? )?"
    r"(?:going|go|went|gone) with|(?:(?:i|we)(?:'ve| have)? )?(?:chose|choosing|picked|selected|settled on"
    r"|opted for|opting for|decided (?:to|on|that|against)|landed on)"
    r"|(?:idemo|idem|krecemo|idemo dalje) (?:sa|s|na)|uzimamo|biramo|izabrali smo|odlucili smo|odlucio sam"
    r"|odlucila sam|ostajemo (?:na|pri|sa)"
    r"|wir (?:nehmen|entscheiden uns|haben uns (?:fur|entschieden))|ich nehme|wir bleiben bei"
    r"|vamos con|nos quedamos con|elegimos|optamos por|decidimos|nos decidimos)\b"
)
THE_X_IS = re.compile(
    r"^(?:(?:the|our|my|die|der|el|la|nase|nas|moje|moj|unser|unsere|nuestra|nuestro) )?(?:approach|plan|fix"
    r"|solution|decision|choice|recommendation|call|resenje|pristup|odluka|predlog|preporuka|plan|losung"
    r"|ansatz|entscheidung|empfehlung|solucion|enfoque|decision|propuesta|idea) (?:is|will be|here is|je|ist"
    r"|es|sera)\b"
)
INTENT = re.compile(
    r"^(?:(?:so|ok|okay|then|now|next|first|and|but|today|tomorrow),? )*(?:i'll|i will|we'll|we will|let's|let us"
    r"|let me|i'm going to|i am going to|we're going to|we are going to|i'm gonna|i plan to|we plan to|i want to"
    r"|i'd like to|ich werde|wir werden|voy a|vamos a|lo voy a|van a) (?P<rest>.*)$"
)
CONCLUSION = re.compile(
    r"^(?:so|thus|therefore|hence|then|dakle|znaci|zato|prema tome|also|daher|somit|folglich|entonces"
    r"|asi que|por lo tanto|por eso|pues)\s*[:,]"
    r"|^[^.:;!?]{1,50}, (?:then|onda|dann|entonces|pues)\s*[:.]"
    r"|^(?!(?:it|this|that|there|what|which|here)\b)[^.:;!?]{2,50} it is\b(?! (?:a|an|the|not|possible|likely"
    r"|worth|too|very|clear|important|hard|easy|fine|ok|better|best|also|still|only)\b)"
)
OPEN_VALUE = re.compile(
    r"^(?:open|offen|otvoreno|abierto|tbd|pending|pendiente|undecided|unklar)(?:\s*(?:[—–:;,.(]|-\s|$)"
    r"|\s+(?:question|for now|until|still))"
)
"""A key-value bullet whose value opens like this is explicitly undecided."""

# --- what kind of step a first-person verb is -----------------------------------------------------------

EXPLORE = re.compile(
    r"^(?:(?:also|first|then|now|just|quickly|go ahead and|start by|prvo|onda|zuerst|dann|primero|luego) )*"
    r"(?:see|check|look|investigate|find|figure|dig|verify|confirm|try|test|ping|ask|think|wait|explore|review"
    r"|explain|show|walk|describe|summari[sz]e|clarify|answer|outline|pull|fetch|grab|gather|collect|read"
    r"|profile|measure|benchmark|compare|reproduce|bisect|inspect|debug|diagnose|audit|survey|sample|estimate"
    r"|capture|record"
    r"|research|analy[sz]e|trace|diff|double-check|sanity-check|make an inventory|make a list|list|take (?:a |"
    r"some |two |three )?(?:heap |memory )?(?:snapshot|look|step|closer|dump)|run (?:\w+ ){0,3}?(?:locally|"
    r"against|a (?:quick )?test|tests?|benchmarks?|profil\w*)"
    r"|add (?:temporary |some |more )?(?:structured )?(?:logging|logs|tracing|metrics)"
    r"|keep (?:you|an eye)|hold|come back|get back|circle back|go (?:through|over)|need|have|be"
    r"|proveri|proverava|pogleda|gleda|istraz|ispit|uporedi|uporedju|izmeri|meri|skinu|skida|prikupi"
    r"|prikuplja|sakupi|reprodukuj|testira|isprob|proba|pita|zamoli|sacek|ceka|analizira|prati|popis"
    r"|napravi\w* (?:spisak|listu|popis)|pravim (?:spisak|listu|popis)|spisak|upisujem"
    r"|prufe|pruf|zieh|vergleich|schau|sehe|teste|analysier|messe|untersuch|samml|sammel|frage|warte"
    r"|reproduzier|revis|compar|reproduc|reproduz|mir|comprob|analiz|prueb|investig|mid|recopil|pregunt"
    r"|esper|verific|consult)"
)
CONDITIONAL = re.compile(
    r"^(?:if|once|when|whichever|whatever|unless|after that|ako|kad|kada|cim|ukoliko|wenn|falls|sobald|si"
    r"|cuando|una vez)\b"
)
FILLER = re.compile(
    r"^(?:you're right|ohoho|haha|hmm|well,|okay|ok\b|sure|yeah|ah\b|oh\b|sorry|thanks|great|done|got it|aha"
    r"|short version|ukratko|kurz gesagt|en resumen|congratulations|good luck)"
)
PAST_REPORT = re.compile(
    r"^(?:i |we )?(?:(?!(?:decided|selected|settled|opted|picked|chosen|agreed)\b)\w{3,}ed|went (?:through|over)"
    r"|found|made|ran|took|got|did|saw|had|built|wrote|sent|put|heard|tried|looked)\b"
    r"|^(?:\w+ )?\w+(?:o|la|li|le) (?:sam|smo)\b|^(?:sam|smo) \w+(?:o|la|li)\b"
    r"|^(?:ich|wir) (?:habe|haben|hatte|hatten)\b|^(?:he|hemos) \w+(?:ado|ido)\b"
)
ORDINAL = re.compile(
    r"\b(?P<word>first|second|third|fourth|prv[aiou]|drug[aiou]|trec[aiou]|cetvrt[aiou]"
    r"|erste\w?|zweite\w?|dritte\w?|vierte\w?|primer[ao]?|segund[ao]|tercer[ao]?|cuart[ao]"
    r") (?:option|one|approach|choice|variant|opcij\w*|varijant\w*|ponud\w*|option|variante|opcion)\b"
    r"|\b(?:option|opcija|variante|opcion) (?P<num>[1-4a-d])\b"
)
ORDINAL_INDEX = {
    "fir": 1, "sec": 2, "thi": 3, "fou": 4, "prv": 1, "dru": 2, "tre": 3, "cet": 4, "ers": 1,
    "zwe": 2, "dri": 3, "vie": 4, "pri": 1, "seg": 2, "ter": 3, "cua": 4,
    "a": 1, "b": 2, "c": 3, "d": 4, "1": 1, "2": 2, "3": 3, "4": 4,
}
"""Position in a list named by an ordinal word (its first three letters) or an option label."""
# First-person morphology outside English: present or future tense said as a commitment.
_SR_ADVERB = r"(?:(?:prvo|onda|sada|sad|danas|sutra|odmah|zatim|i|pa|ja|mi|vec|ovim|zato)\s+)?"
SR_1PL = re.compile(r"^" + _SR_ADVERB + r"(?P<verb>\w{3,}(?:mo))\b")
SR_1SG = re.compile(r"^" + _SR_ADVERB + r"(?P<verb>\w{4,}(?:jem|sem|zem|cem|im|am|em))\b")
SR_FUTURE = re.compile(r"^" + _SR_ADVERB + r"(?:(?P<verb>\w{3,}(?:cu|cemo))|(?:cu|cemo) (?P<verb2>\w+))\b")
SR_NOT_VERBS = _set(
    "samo tamo ovamo kamo jedino problem sistem program algoritam album forum medijum kriterijum dom "
    "ekran termin tim film sam smo ali ipak posle jos ovim takodje"
)
DE_1P = re.compile(r"^(?:(?:dann|danach|jetzt|heute|morgen|zuerst|also|und) )?(?:ich|wir) (?P<verb>\w+)\b")
DE_NOT_COMMIT = _set(
    "habe haben hatte hatten bin sind war waren kann konnen muss mussen wurde wurden sollte sollten mochte "
    "mochten will wollen weiss wissen denke glaube finde brauche brauchen"
)
ES_1PL = re.compile(
    r"^(?:(?:primero|luego|hoy|manana|ahora|despues|y) )?(?P<verb>\w{3,}(?:amos|emos|imos|aremos|eremos|iremos))\b"
)
ES_1SG = re.compile(
    r"^(?:(?:primero|luego|hoy|manana|ahora|despues|y|ya) )?(?P<verb>\w{3,}o) (?:el|la|los|las|un|una|en|a|al"
    r"|con|por|para|lo|le|les|ya|ahora|hoy|todo|todos|mi|tu|su|nuestro|nuestra|aparte)\b"
)
ES_NOT_VERBS = _set(
    "todo esto eso como pero cada nuevo mismo primero segundo tercero solo otro poco mucho dinero cambio "
    "tiempo caso resumen dato puerto correo bueno malo claro cuanto tanto vamos tenemos podemos hemos "
    "estamos somos"
)
EN_WE_PRESENT = re.compile(
    r"^(?:(?:so|then|now),? )?we (?!(?:are|were|was|have|had|can|could|should|would|might|need|don't|do|did"
    r"|also|still|just|only|already|never|currently|usually)\b)(?P<verb>\w+)\b"
)
REPLY_START = re.compile(
    r"\b(?:start|begin|first one|first step|step 1|with (?:the )?first|kreni|krenite|pocni|pocnite|prvim"
    r"|prvi korak|fang an|fangt an|leg los|los geht|empieza|empezad|comienza|el primero)\b"
)
REPLY_AFFIRM = re.compile(
    r"^(?:y|yes|yep|yeah|ok|okay|sure|go|do it|ship it|agreed|approved|perfect|great|nice|sounds good|love it"
    r"|makes sense|lgtm|deal|please|finally|vazi|moze|ajde|kreni|da|super|odlicno|savrseno|dogovoreno|slazem"
    r"|top|ja|passt|gut|einverstanden|klingt gut|mach|si|dale|vale|venga|perfecto|de acuerdo|hazlo|claro"
    r"|👍|✅)\b|👍"
)
REPLY_DEFER = re.compile(
    r"\b(?:let me (?:think|check|sleep)|sleep on it|think about it|later|tomorrow|on monday|decide|check with"
    r"|ask \w+|talk to|discuss|need to check|wait|hmm|javim|javi(?:cu|m)|razmislic|pitac|pitam|moram da pitam"
    r"|cekaj|sacekaj|sutra|uberlege|spater|besprechen|lo hablo|lo pienso|luego|manana)\b"
)
ANNOUNCEMENT = re.compile(
    r"^(?:so,? )?(?:here(?:'s| is| are)|this is|these are|below (?:is|are)|evo|ovo je|hier (?:ist|sind)|das ist"
    r"|aqui (?:esta|tienes|va)|esto es)\b[^.!?:]{0,60}\b(?:what|how|my|the following|sta|kako|moj|was|wie|mein"
    r"|lo que|como|mi)\b[^.!?:]{0,40}[.!:]?$"
)
"""A line that only announces what follows ("Here's what I found and what I propose."): a header in prose form."""
REPLY_REJECT = re.compile(r"^(?:no|nope|nah|ne|nein|nicht|don't|do not|not yet|nemoj|ni slucajno|mejor no)\b")
"""A reply that turns the proposal down (checked before :data:`REPLY_AFFIRM`: "no, keep it" is no yes)."""


# --- phrase families, found anywhere in a line (see engine.capture.language.phrases) ----------------------

UNDECIDED = Phrases(
    "pending | still open | open question* | tbd | to be decided | to be settled | to be confirmed | to be determined"
    "| not decided | not yet decided | not settled | not yet settled | not chosen | not agreed | not confirmed"
    "| not yet confirmed | undecided | inconclusive | unresolved | no decision | haven't decided | not sure"
    "| depends on | it depends | your call | up to you | no strong preference | don't have a strong preference",
    "jos nije | jos nismo | jos otvoren* | i dalje otvoren* | nije doneta | nije doneseno | nije dogovoreno"
    "| nije odluceno | nismo odlucili"
    "| nismo se dogovorili | zavisi | nije jasno",
    "noch offen | nicht entschieden | noch nicht | hangt davon ab | hangt ab | unklar",
    "pendiente | sin decidir | no decidido | no esta decidido | depende | todavia no | aun no",
)
"""A statement that the matter is still open ("Tracing: still open", "Odluka: još nije doneta")."""
RECOMMEND = Phrases(
    "i recommend | i suggest | i propose | i'd go with | i would go with | my suggestion | my recommendation"
    "| my pick | my vote | predlazem | preporucujem | moj predlog | ich schlage | ich empfehle | mein vorschlag"
    "| propongo | recomiendo | sugiero | mi propuesta"
)
STANDING = Phrases(
    "from now on | going forward | from here on | od sada | ubuduce | ab jetzt | ab sofort | kunftig"
    "| a partir de ahora | de ahora en adelante | en adelante"
)
CHORE = Phrases(
    "adr | adrs | write this up | write it up | write that up | write them up | write up | document | documented"
    "| dokumentov* | zapisa* | documentar* | notify | ping | let you know | let them know | let everyone know"
    "| send you | send the confirmation | send the payment link | post it | post the | present | remind"
    "| announce | release notes | changelog | watch the | monitor | keep an eye | report back | come back with"
    "| get back to | te escribo | javi* | podseti* | melde mich | schicke ich | file the"
)
"""Documentation, communication and monitoring chores that follow a decision ("I'll write this up as an ADR")."""
ALSO = Phrases(
    "i'll also | we'll also | i will also | we will also | i also | i'm also | we're also | additionally"
    "| ich werde auch | tambien"
)
PREPARATORY = Phrases(
    "first | before we | before i | before changing | before touching | before picking | before deciding | prvo"
    "| pre nego | zuerst | bevor | primero | antes de"
)
HEDGE = Phrases(
    "would | could | might | maybe | perhaps | possibly | probably | i'd | i think | i guess | consider | unless"
    "| optionally | bi | bih | bismo | biste | mozda | verovatno | mogli | moglo | eventualno | wurde | wurden"
    "| konnte | konnten | vielleicht | wahrscheinlich | eventuell | podria | podriamos | quizas | tal vez"
    "| probablemente | seria"
)
EITHER_OR = Phrases("either ... or | ili ... ili | entweder ... oder | o bien ... o")
_ORDINALS = (
    "first second third fourth last other prv* drug* trec* cetvrt* poslednj* erste* zweite* dritte* primer* segund* "
    "tercer*"
)
_OPTION_NOUNS = "option one approach choice opcij* varijant* ponud* variante opcion"
ORDINAL_REFERENCE = Phrases(
    " | ".join(
        f"{o} {n}"
        for o in _ORDINALS.split()
        for n in _OPTION_NOUNS.split()
    ),
    "option a | option b | option c | option 1 | option 2 | option 3 | opcija 1 | opcija 2 | opcija 3",
)
"""A choice named only by its place in a list ("the second option"): meaningless out of context."""
DONE = Phrases("all done | done | finished | completed | gotovo | zavrsio | zavrsila | fertig | terminado | listo")
YOU = Phrases("you | you're | you'd | your | ti | vi | vas | vam | ihr | du | euch | tu | usted | ustedes")
DOC_EXPLORE = Phrases(
    "don't know yet | do not know yet | not sure yet | no idea yet | before we change | before changing"
    "| before touching | before picking | before deciding | before we decide | once we know | until we know"
    "| don't want to guess | do not want to guess | can't tell which | none of these change | none of these steps"
    "| none of this changes | only gathering | just gathering | just collecting | we can talk about the"
    "| then we can look | then we can decide | then we can talk",
    "ne znam jos | nemam jos | dok ne vidimo | pre nego sto odlucimo | pre nego sto bilo sta | pa onda biramo"
    "| ne menja nista | samo skupljamo",
    "bevor ich etwas | bevor ich was | will ich wissen | will ich erst wissen",
    "antes de tocar | todavia no se | cuando tenga claro | cuando lo tenga claro | sabremos",
)
"""A response that is still diagnosing: whatever it proposes to do is a step towards a decision, not one."""
