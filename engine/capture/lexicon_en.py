"""English working vocabulary for duplicate detection: synonym groups, abbreviations, opposite actions.

``GROUPS`` has one concept per line: ``concept: word word multi_word``. Words are base forms in lower case;
:mod:`engine.capture.canonical` adds their inflections (``-s``, ``-ed``, ``-ing``, ...) and reads ``multi_word`` as
the phrase "multi word". Two words that share a concept are the same word for comparison. A word may sit in
several groups ("book" is a reservation and a thing you read). ``ABBREVIATIONS`` expand before lookup;
``AXES`` puts concepts on an axis with a sign, so "enable" and "disable" are opposite, not different.
The Serbian side of every concept is in :mod:`engine.capture.lexicon_sr`.
"""

from __future__ import annotations


def _set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words``."""
    return frozenset(words.split())


GROUPS = """
add: add insert append attach
create: create make build generate
remove: remove delete drop erase purge wipe get_rid_of clean_up prune scrap eliminate
keep: keep retain preserve maintain leave_as_is hold_on_to stay remain
change: switch migrate migration move transfer transition convert port shift replace swap substitute relocate
update: update refresh revise amend modify edit adjust tweak change
upgrade: upgrade bump update
downgrade: downgrade
adopt: adopt use follow introduce choose pick go_with standardize_on stick_to apply enforce
start: start begin kick_off commence initiate launch get_started
stop: stop end halt cease discontinue quit drop
pause: pause suspend freeze
resume: resume continue unpause restart
enable: enable activate turn_on switch_on
disable: disable deactivate turn_off switch_off
run: run operate
shut_down: shut_down power_off take_down decommission
open: open
close: close shut
merge: merge combine join consolidate unify
split: split separate divide break_up decouple
include: include
exclude: exclude omit leave_out
lock: lock
unlock: unlock
allow: allow permit allowlist whitelist
block: block deny blocklist blacklist
accept: accept approve agree
decline: decline reject refuse turn_down
public: public
private: private
buy: buy purchase
sell: sell
book: book reserve schedule sign_up enroll register subscribe arrange set_up_an_appointment
renew: renew extend prolong
cancel: cancel unsubscribe terminate call_off withdraw
postpone: postpone delay defer reschedule push_back
increase: increase raise grow boost expand lift scale_up bump_up
decrease: decrease reduce lower cut shrink trim minimize slash cut_down scale_down
faster: speed_up accelerate faster quicker quick fast
show: show display reveal present expose surface
hide: hide conceal
fix: fix repair resolve patch sort_out
pay: pay settle pay_back pay_off reimburse
owe: owe
charge: charge bill
send: send mail forward deliver ship
email: email mail
call: call phone ring
invite: invite
ask: ask inquire request query
tell: tell inform notify let_know update announce
remind: remind
thank: thank
reply: reply respond answer write_back
meet: meet
review: review assess assessment evaluate evaluation audit look_over go_over
check: check verify confirm inspect double_check
investigate: investigate look_into dig_into research explore debug diagnose
write: write draft compose
document: document write_up documentation doc docs
test: test tests testing
deploy: deploy deployment roll_out
release: release ship launch publish
install: install
setup: setup set_up configure config configuration
track: track record measure count
log: log logs logging
monitor: monitor watch observe
alert: alert alarm warning
take: take bring carry drop_off
return: return give_back bring_back
pick_up: pick_up collect fetch
give: give grant provide assign
get: get obtain receive acquire
translate: translate
refactor: refactor restructure rewrite clean
clean: clean tidy wash
backup: backup back_up snapshot
restore: restore recover
rotate: rotate
sign: sign
hire: hire recruit
onboard: onboard
train: train teach coach
learn: learn study
prepare: prepare prep
organize: organize plan arrange
print: print
upload: upload
download: download
order: order
rent: rent lease hire
borrow: borrow
lend: lend loan
visit: visit see
travel: travel go trip
fly: fly flight
drive: drive
need: need require necessary mandatory required obligatory must
limit: limit cap restrict max maximum
above: above over exceed exceeds more_than higher_than
below: below under less_than lower_than
big: big large bigger larger huge
small: small little smaller tiny
old: old legacy stale outdated previous former aged
new: new fresh latest
automatic: automatic automatically auto automated
unused: unused idle orphaned
size: size capacity
cost: cost costs spend spending expense expenses price fee
money: money cash funds
bill: bill invoice receipt
invoice: invoice
quote: quote offer estimate proposal
account: account
payment: payment payments
salary: salary pay wage
tax: tax taxes
tax_return: tax_return
insurance: insurance
contract: contract agreement lease
apartment: apartment flat
house: house home
room: room
hallway: hallway corridor hall
light_bulb: light_bulb bulb lightbulb
roof: roof
heating: heating heater radiator
boiler: boiler water_heater
aircon: air_conditioner air_conditioning aircon
fridge: fridge refrigerator
car: car vehicle auto
tyre: tyre tire tyres tires
mechanic: mechanic garage
plumber: plumber
electrician: electrician
repairman: repairman handyman technician
doctor: doctor physician
dentist: dentist
pediatrician: pediatrician
eye_doctor: eye_doctor ophthalmologist optometrist
dermatologist: dermatologist
appointment: appointment slot booking reservation
exam: exam checkup check_up examination
school: school
kindergarten: kindergarten preschool daycare nursery
supplies: supplies stationery
teacher: teacher
kid: kid kids child children
mother: mother mom mum mama
father: father dad papa
grandmother: grandmother grandma granny
grandfather: grandfather grandpa
aunt: aunt
uncle: uncle
friend: friend
neighbour: neighbour neighbor
birthday: birthday bday
party: party celebration
gift: gift present
cake: cake
dinner: dinner supper
lunch: lunch
breakfast: breakfast
restaurant: restaurant
table: table
meeting: meeting sync standup call
presentation: presentation slides deck
report: report
budget: budget
deadline: deadline due_date
vacation: vacation holiday holidays leave time_off pto
trip: trip journey travel
ticket: ticket tickets
passport: passport
luggage: luggage baggage suitcase
coat: coat jacket
jacket: jacket
sneakers: sneakers trainers
shoes: shoes
dry_cleaning: dry_cleaning dry_cleaner dry_cleaners
laundry: laundry
book_noun: book books
library: library
subscription: subscription membership plan
electricity: electricity power
water: water
gas: gas
internet: internet
phone: phone mobile cellphone smartphone
computer: computer laptop pc
database: database db
server: server host machine instance
service: service
module: module component package
endpoint: endpoint route
page: page screen
website: website site
user: user users account_holder
customer: customer client user
team: team squad
developer: developer dev engineer
admin: admin administrator
permission: permission permissions access rights right
password: password passphrase
secret: secret secrets credentials creds token key
certificate: certificate cert tls_certificate ssl_certificate
tls: tls ssl https
domain: domain
branch: branch
commit: commit
pull_request: pull_request pr merge_request mr
release_candidate: release_candidate rc
code_review: code_review review
pipeline: pipeline workflow
job: job task cron_job
queue: queue
cache: cache caching cached
index: index
column: column field
migration: migration
storage: storage disk drive
memory: memory ram
usage: usage utilization consumption
error: error errors failure failures exception
crash: crash crashes
bug: bug issue defect
incident: incident outage
latency: latency
performance: performance speed
production: production prod live
staging: staging
environment: environment env
repository: repository repo
documentation: documentation docs doc
internationalization: internationalization i18n
localization: localization l10n
accessibility: accessibility a11y
kubernetes: kubernetes k8s kube
postgres: postgres postgresql psql pg
authentication: authentication auth login sign_in authn
two_factor: two_factor 2fa mfa multi_factor
continuous_integration: continuous_integration ci
continuous_delivery: continuous_delivery continuous_deployment cd delivery
end_to_end: end_to_end e2e
out_of_memory: out_of_memory oom
request_for_comments: request_for_comments rfc
single_sign_on: single_sign_on sso
one_on_one: one_on_one 1_1 1on1
end_of_day: end_of_day eod
end_of_week: end_of_week eow
semver: semver semantic_versioning
internet_explorer: internet_explorer ie
registration: registration signup sign_up signups new_user_registration
image: image
photo: photo picture pic pics
video: video recording
demo: demo demonstration
feature: feature
flag: flag toggle feature_flag
banner: banner
note: note notes
policy: policy rule rules guideline guidelines
privacy: privacy
analytics: analytics metrics stats statistics
tool: tool tooling
process: process procedure
pagination: pagination paging
compression: compression compress
tag: tag
version: version
support: support supporting
paid: paid paying premium
free: free
agency: agency firm
supplier: supplier vendor provider
accountant: accountant bookkeeper
lawyer: lawyer attorney
landlord: landlord owner
contractor: contractor contractors builder
nanny: nanny babysitter sitter
week: week weekly
month: month monthly
day: day daily
year: year yearly annual annually
morning: morning
evening: evening night tonight
weekend: weekend
today: today
tomorrow: tomorrow
"""

ABBREVIATIONS = {
    "ci/cd": "continuous integration continuous delivery",
    "tls/ssl": "tls",
    "ssl/tls": "tls",
    "a/c": "aircon",
    "w/o": "without",
    "w/": "with ",
    "1:1": "one on one",
    "p.m.": "pm",
    "a.m.": "am",
}
"""Abbreviations written with punctuation, replaced before the text is split into words."""

NEGATED_FORMS = {
    "unused": "use", "unpaid": "pay", "unread": "read", "unsigned": "sign", "untested": "test",
    "unassigned": "assign", "unchanged": "change", "untouched": "touch", "unsupported": "support",
    "inactive": "active", "incomplete": "complete", "unfinished": "finish", "undocumented": "document",
    "unencrypted": "encrypt", "unverified": "verify", "unapproved": "approve", "unreleased": "release",
    "netaknut": "taknut", "netaknuto": "taknut", "netaknuta": "taknut", "nekoriscen": "koriscen",
    "nekorisceni": "koriscen", "neplacen": "placen", "neplaceni": "placen", "neplacena": "placen",
    "netestiran": "testiran", "nepotpisan": "potpisan",
}
"""Words that carry their own negation: "unused" reads as "not" + "use"."""

AXES = {
    "add": ("add", 1),
    "create": ("add", 1),
    "remove": ("add", -1),
    "keep": ("keep", 1),
    "enable": ("enable", 1),
    "disable": ("enable", -1),
    "run": ("run", 1),
    "shut_down": ("run", -1),
    "start": ("start", 1),
    "stop": ("start", -1),
    "resume": ("pause", -1),
    "pause": ("pause", 1),
    "open": ("open", 1),
    "close": ("open", -1),
    "merge": ("merge", 1),
    "split": ("merge", -1),
    "include": ("include", 1),
    "exclude": ("include", -1),
    "lock": ("lock", 1),
    "unlock": ("lock", -1),
    "allow": ("allow", 1),
    "block": ("allow", -1),
    "accept": ("accept", 1),
    "decline": ("accept", -1),
    "public": ("public", 1),
    "private": ("public", -1),
    "buy": ("buy", 1),
    "sell": ("buy", -1),
    "book": ("arrange", 1),
    "renew": ("arrange", 1),
    "cancel": ("arrange", -1),
    "increase": ("increase", 1),
    "decrease": ("increase", -1),
    "upgrade": ("upgrade", 1),
    "downgrade": ("upgrade", -1),
    "show": ("show", 1),
    "hide": ("show", -1),
    "above": ("above", 1),
    "below": ("above", -1),
    "big": ("big", 1),
    "small": ("big", -1),
}
"""Concepts on an axis with a sign: two texts that put the same axis in opposite signs differ."""
AXES_NEGATIVE_KEEP = ("remove",)
"""Concepts that also mean "not keep" (removing is the opposite of keeping as well as of adding)."""

NEGATORS = _set(
    "not no never don't dont doesn't didn't won't wont can't cannot shouldn't mustn't isn't aren't wasn't "
    "without nobody none nothing nowhere neither nor ban banned bans forbid forbidden prohibit prohibited "
    "disallow disallowed avoid skip"
)
UNDO = _set("revert undo roll_back rollback reverse")
"""Words that undo the action after them ("Roll back the upgrade"): a negation of that action."""

STOP_WORDS = _set(
    "the a an is are was were be been being to and or in for with that this of i we it he she they you my our "
    "will would have has had do does did can could should may might shall also just now then so if but "
    "there here all every each any some across per via by from into onto about as at on than these those "
    "its your their his her him them us me let let's i'll we'll you'll i'm we're you're i've we've i'd we'd "
    "it's that's what which who whom whose when where how out up too very please want wants going gonna "
    "able really maybe still already again get gets got getting make makes made doing "
    "always every everything everyone other another our own same both more most such only"
)
"""Function words dropped before comparison. Light verbs of policy statements are in ``LIGHT``."""

LIGHT = _set("adopt need start")
"""Concepts that may match but whose absence is not a difference ("Adopt X" / "We follow X")."""

PRONOUNS = _set("him her them he she they his hers their theirs")
PERSON_CONCEPTS = _set(
    "customer team user kid mother father grandmother grandfather aunt uncle friend neighbour teacher "
    "doctor dentist pediatrician plumber electrician mechanic repairman accountant lawyer landlord contractor "
    "nanny supplier agency developer admin"
)
"""Concepts a pronoun can stand for, besides a person's name."""

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "fifteen": "15", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
}
"""Number words read as numbers (ordinals stay words: "third quarter" is read as Q3 by the value reader)."""
