"""Serbian (Latin script, folded) side of the duplicate-detection vocabulary in :mod:`engine.capture.lexicon_en`.

``GROUPS`` maps each concept to Serbian forms, one concept per line: ``concept: stem* form multi_word``. A form
ending in ``*`` is a stem that any inflection extends ("racun*" covers račun, računa, računu, računi); the
longest matching stem wins, so "kupi*" (buy) never swallows "kupatilo" (bathroom). Forms are folded: no
diacritics ("č" -> "c", "đ" -> "d"). Verbs are listed by the stems their aspects and tenses use ("zakaz*",
"zakazuj*"). A Serbian word with no entry is compared by its stem and, for loanwords, by spelling
("kalkulator" / "calculator", see :func:`engine.capture.canonical.cognate_key`).
"""

from __future__ import annotations


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())


GROUPS = """
add: doda* dodav* dodaj* ubac* ubacuj*
create: napravi* pravi* kreira* kreir*
remove: uklon* uklanja* obris* obrise* brisa* brise* izbris* izbaci* izbacuj* ocisti_od
keep: zadrz* sacuva* cuva* ostavi* ostaje ostaju ostane ostanu ostati
change: prebac* prebacuj* premest* premesta* migrir* migrac* migracij* prelaz* preci_na prede_na zamen* zamenj* menjamo
update: azurir* izmen* izmeni* promen* promeni* dopun* osvez*
upgrade: nadograd* apgrejd* azurir*
adopt: koristi* koristimo koriste uvesti uvodi* uvodimo uved* izabr* odabr* primeni* primenj* pratimo prati
start: poce* pocn* poci* zapoc* pokren* pokrec* krenu* krece*
stop: zaustav* prekin* prekid* prestan* ukin* ukida*
pause: pauzir*
resume: nastav* nastavlja*
enable: uklju* aktivir* omogu* upal*
disable: isklju* deaktivir* onemogu* ugas*
shut_down: ugas* gase* gasi*
open: otvor* otvara*
close: zatvor* zatvara*
merge: spoj* spaj* objedin* sjedin*
split: razdvoj* podel* odvoj* razbi* razdeli*
include: uklju* obuhvat*
exclude: isklju* izostav*
lock: zakljuca* zaklj*
unlock: otkljuca* otklj*
allow: dozvol* dopust*
block: blokir*
accept: prihvat* odobr* usvoj*
decline: odbi* odbij* odbac*
public: javn*
private: privatn*
buy: kupi* kupuj* kupov* kupljen* nabav*
sell: proda* prodaj*
book: zakaz* zakazuj* rezervis* rezervac* prijav* upis* upisuj* pretplat*
renew: obnov* obnavlj* produz*
cancel: otkaz* otkazuj* raskin* raskid* odjav* ispis*
postpone: odloz* odlag* pomer* pomera*
increase: povec* uvec* podig* podiz* porast*
decrease: smanj* umanj* snizi* snizav* spust* skrat*
faster: ubrza* brze brzi
show: prikaz* pokaz*
hide: sakri* sakriva*
fix: poprav* isprav* resi* resava* sredi*
pay: plat* placa* placanj* isplat* vrati_novac
charge: naplat* naplacuj*
send: posla* posalj* salj* slanj* prosled*
email: mejl* imejl* mail*
call: pozov* pozva* poziva* zov* zva*
invite: pozov* pozva* poziva*
ask: pita* upita* zamol* zatraz* trazi*
tell: javi* javlja* obavest* obavestava* reci rekni kazi
remind: podset* podsec*
thank: zahval* zahvaljuj*
reply: odgovor*
meet: sastan* sastaj* nadj*
review: pregled* recenzij*
check: proveri* proverava* proveri
investigate: istraz* ispita* ispit*
write: napis* pisa* pise* pisi*
document: dokumentov* dokumentac* dokument*
test: test* testir*
deploy: deploy* deplo* isporu*
release: objav* izda* izdanj* pust*
install: instalir* instalac*
setup: podes* podesav* konfigur* namest* postav*
track: prati* pracen* belez* meri*
log: log logovi logove logova logovanj*
monitor: nadgled* monitoring*
alert: alarm* upozor* obavestenj*
take: odnes* odne* nosi* donesi* donet* uzmi* uzeti
return: vrati* vraca* vracanj*
pick_up: pokupi* pokupit* preuzm* preuzim* preuzet*
give: daj* dati dodeli* dodelj*
get: dobi* dobij*
translate: prevod* preved* prevesti
refactor: refaktor* prepravi* prepis*
clean: ocisti* cisti* cisca* ciscenj* operi* pranj*
backup: bekap* backup* rezervn*_kopij*
restore: vrati* povrati*
rotate: rotir*
sign: potpis*
hire: zaposl* angazov*
train: obuc* obucava*
prepare: pripremi* priprema* spremi* sprema*
organize: organizuj* organizov* organizac* isplanir* planir*
print: stampa* odstampa*
upload: otprem* upload*
download: preuzm* skini* skida*
order: naruci* narucuj* porudzbin* narudzbin*
rent: iznajm* rentir*
borrow: pozajm*
visit: poset* obid*
travel: putova* put puta
fly: let leta letom
need: treba potreb* mora moraju obavez* neophod*
limit: ogranic*
above: iznad preko prede predje preci prelazi premasi*
below: ispod manje_od
big: vec* velik*
small: manj* mal*
old: star* zastarel* prethodn* bivs*
new: novi nova novo novog novu novom novih nove novim
unused: nekoriscen* neiskoriscen*
size: velicin*
cost: trosk* trosak* cen* cena
money: novac* novca novcem pare para
bill: racun* faktur* priznanic*
invoice: faktur* racun*
quote: ponud* predracun*
account: nalog* racun*
payment: placanj* uplat*
salary: plat* zarad*
tax: porez*
tax_return: poresk*_prijav*
insurance: osiguranj*
contract: ugovor*
apartment: stan stana stanu stanom stanovi* apartman*
house: kuca* kuci kucu
room: sob* prostorij*
hallway: hodnik*
light_bulb: sijalic*
roof: krov*
heating: grejanj* radijator* grejalic*
boiler: bojler*
aircon: klim* klima_uredjaj*
fridge: frizider*
car: auto auta autu autom automobil* kola kolima
automatic: automatsk* auto
tyre: gum* guma
mechanic: mehanicar* automehanicar* servis_za_auto
plumber: vodoinstalater*
electrician: elektricar*
repairman: majstor*
doctor: lekar* doktor*
dentist: zubar* stomatolog*
pediatrician: pedijatar* pedijatr*
eye_doctor: oftalmolog* ocni_lekar*
dermatologist: dermatolog*
appointment: termin*
exam: pregled*
school: skol* skolsk*
kindergarten: vrtic* obdanist*
supplies: pribor*
teacher: nastavni* uciteljic* ucitelj*
kid: dete deteta detetu deca decu deci decom klinci* sin sina sinu cerk*
mother: mam* majk* majci
father: tat* otac oca ocu
grandmother: bak* baba babi babu
grandfather: ded* deda
aunt: tetk* strin*
uncle: ujak* ujk* stric* teca tec*
friend: prijatelj* drug drugu druga drugarica*
neighbour: komsij* komsinic*
birthday: rodjendan* rodendan*
party: zurk* proslav*
gift: poklon*
cake: tort*
dinner: vecer*
lunch: rucak rucka rucku ruckom
breakfast: dorucak* doruck*
restaurant: restoran*
table: sto stola stolu stolove stolovi*
meeting: sastan* sastanak*
presentation: prezentacij* slajd*
report: izvestaj*
budget: budzet*
deadline: rok roka roku rokom
vacation: odmor* godisnj* raspust*
trip: put puta putovanj* izlet*
ticket: kart*
passport: pasos*
luggage: prtljag* kofer*
coat: kaput*
jacket: jakn*
sneakers: patik*
shoes: cipel* obuc*
dry_cleaning: hemijsk*_ciscenj* hemijsk*
laundry: ves vesa vesom
book_noun: knjig*
library: bibliotek*
subscription: pretplat* clanarin*
electricity: struj*
water: vod* vodu
gas: gas gasa
internet: internet*
phone: telefon* mobiln*
computer: racunar* laptop*
database: baz* bazu
server: server*
service: servis* usluga*
module: modul*
page: stranic* strana strane stranu
website: sajt*
user: korisni*
customer: klijent* kupac* kupc* musterij*
team: tim tima timu timom ekip*
developer: programer* developer*
admin: admin*
permission: dozvol* pristup* prav*
password: lozink* sifr*
secret: tajn* kljuc*
certificate: sertifikat*
domain: domen*
branch: gran*
pull_request: pull_request pr*
code_review: code_review review*
job: posao posla poslove zadat*
queue: red redu
cache: kes* kesira* kesiranj*
index: indeks*
column: kolon*
migration: migracij*
storage: skladist* disk*
memory: memorij*
usage: potrosnj* koriscenj* zauzec*
error: gresk* greska
crash: pad pada padov* rusenj*
bug: bag* gresk*
incident: incident* ispad*
performance: performans* brzin*
production: produkcij* prod
staging: staging*
environment: okruzenj*
documentation: dokumentacij*
authentication: autentifikacij* prijavljivanj* logovanj*
image: slik*
photo: fotografij* fotk* slik*
video: video* snimak* snim*
registration: registracij* prijav* upis*
banner: baner*
policy: politik* pravil* pravilnik*
privacy: privatnost*
analytics: analitik*
tool: alat*
process: proces*
pagination: paginacij* straniceni*
compression: kompresij*
version: verzij*
discount: popust*
calculator: kalkulator*
supplier: dobavljac*
accountant: knjigovodj* knjigovod* racunovodj*
lawyer: advokat*
landlord: stanodavac* vlasnik*
contractor: izvodjac* majstor*
nanny: dadilj* bebisiter*
week: nedelj* sedmic*
month: mesec* mesecn*
day: dan dana danu dnevn*
year: godin* godisnj*
morning: jutr* ujutru
evening: vece vecer* uvece
weekend: vikend*
today: danas
tomorrow: sutra
agency: agencij*
"""

NEGATORS = _set(
    "ne nemoj nemojte nije nisu nismo niste nisam necemo necu nece nikad nikada bez niko nista nicega nema "
    "nemamo zabrani zabraniti zabranjeno zabranjen"
)
STOP_WORDS = _set(
    "je su sam si smo ste i ili ali a da za na u sa od do iz taj ta to ovo ono ja ti on ona mi vi oni s po pri "
    "kod prema kroz o k ka ovaj ova ovi ove ovu tu tom toga te li jos sve svi svih sva svaki svaka svako kao sto "
    "kako gde kada kad zato pa onda sad sada vec samo jer nego one se bi bih bismo ce cu cemo cete moram "
    "moramo mozemo moze mogu biti bude budu zbog oko uz ako dok kroz posle pre pred iza"
)
PRONOUNS = _set("njega nju ga mu joj ih im njemu njoj njima on ona oni one njen njegov njihov je")
"""Object pronouns ("je" only after an infinitive: "Pitati je ...")."""
NUMBER_WORDS = {
    "jedan": "1", "jedna": "1", "jedno": "1", "dva": "2", "dve": "2", "tri": "3", "cetiri": "4", "pet": "5",
    "sest": "6", "sedam": "7", "osam": "8", "devet": "9", "deset": "10", "dvadeset": "20", "trideset": "30",
}
