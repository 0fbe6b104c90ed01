"""What a user message does in the conversation, from its shape (docs/capture.md, Conversation acts).

A message is split into sentences; each sentence is read for its form -- a question, an imperative or a
request ("update X", "I want you to …", "请把…改成…"), a standing preference or prohibition ("don't …", "only
…", "不要…"), a correction of the agent's last turn ("no no, you did the opposite"), a deferral ("nevermind,
not now", "先不"). The message's acts follow from its sentences and from where it stands: a short "yes" / "no"
right after the agent asked or offered something approves or rejects that proposal; a message that is mostly a
pasted log reports a problem. English and Chinese forms are listed (Japanese in language/japanese.py, Korean in
language/korean.py); in other languages a message is a question by its mark, and an instruction by what the agent
does next (shape_acts.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from engine.capture.language.japanese import JA_PREFERENCE, JA_REQUEST, JA_WANT, KANA
from engine.capture.language.korean import (
    HANGUL,
    KO_ACK,
    KO_APPROVAL,
    KO_BARE_YES,
    KO_CORRECTION,
    KO_REJECTION,
    read_korean,
)
from engine.capture.pasted import pasted_lines

__all__ = ["SCOPE_LIMIT", "Act", "Sentence", "UserTurn", "after_place", "asks_whether_fixed", "copied_list_items",
           "picks_option", "read_user_turn", "says_failure", "sentences", "word_count"]

Act = str
"""One of ``instructs``, ``prefers``, ``corrects``, ``approves``, ``rejects``, ``defers``, ``asks``,
``reports`` (a pasted log or error, or a statement of how things stand that neither asks nor instructs),
``acknowledges`` (thanks, ok)."""

_SPLIT: Final = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；;])|\n+")
_CJK: Final = re.compile(r"[\u3400-\u9fff]")
_WORD: Final = re.compile(r"[^\W\d_]+", re.UNICODE)

_LEAD: Final = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|also|and|then|great|greatt|fantastic|phenomenal|perfect|nice|cool|good|alright"
    r"|hmm+|well|but|moreover|finally|first|next|kindly|please|pls|lastly|additionally|another thing"
    r"|small update|one more thing|oh|therefore|hence|thus|instead|just|simply)\b[\s,.!:;—–-]*"
    # Files attached by mention ("@pplx.py @serpapi.py Now add …") stand before the words, not in them.
    r"|@[^\s@]+\s+)+",
    re.I,
)
_IMPERATIVE: Final = re.compile(
    r"^(?:add|adjust|allow|apply|begin|build|change|check|clean|commit|continue|convert|copy|create|define|delete"
    r"|document|drop|do|draw|edit|enable|disable|ensure|explain|extract|find|fix|follow|generate|get|give|go|handle"
    r"|implement|include|install|integrate|keep|let's|lets|let us|let(?= )(?! me )|limit|log|look|make|mark|merge"
    r"|migrate|move|open"
    r"|print|put|read|redesign|refactor|reformat|remove|rename|reorder|replace|resolve|restore|revert|rewrite|run|save"
    r"|separate|set|show|simplify|skip|split|start|state|stick|store|study|swap|switch|test|trace|try|turn|draft"
    r"|prepare|plan|review|investigate|describe|list|summarize|ship|deploy|push|bump|port|wire|debug|measure"
    r"|compare|help|tackle|publish|release|profile|benchmark|hook|close|stop|send|search|clarify|capture|classify"
    r"|organi[sz]e|reorgani[sz]e|restructure|group|sort|unify|combine|align|translate|localize|localise"
    r"|undo|update|use|verify|write|re-\w+)\b",
    re.I,
)
_CLAUSE_LEAD: Final = re.compile(
    r"[,;:]\s*(?:so|therefore|then|and then|please|kindly|now|also|and|but)[\s,]+(?:please\s+)?"
    r"|\s(?:so|therefore)\s+(?!that\b)", re.I
)
"""A clause that a run-on message starts after a comma, or after "so" without one: "…, therefore, classify them
into jobs", "just the one main option so get rid of the other approach"."""
_PICK: Final = re.compile(
    r"\b(?:the|that|your)\s+(?:first|second|third|fourth|last|other|former|latter|right|correct|original|previous"
    r"|recommended|simpler|simplest|\d(?:st|nd|rd|th))\s+(?:one|approach|option|way|solution|method|route|path|plan"
    r"|alternative|version|choice|idea)\b"
    r"|\b(?:option|approach|solution|route|choice|variant)\s+(?:#?\d|(?-i:[A-D])|one|two|three)\b"
    r"|\b(?:plan|path)\s+(?-i:[A-D])\b|\b(?:go|going|stick)\s+with\s+(?:#?\d|(?-i:[A-D]))\b"
    r"|方案\s*[一二三四ABCD1-4]|第[一二三四1-4](?:种|个)(?:方案|方法|思路|路径)?|路径\s*[A-D一二三]|选项\s*[A-D1-4一二三]",
    re.I,
)
"""A choice among the agent's options named by its place or standing, not by what it is ("do the second
approach instead", "the right approach", "option B", "go with 2", 方案二): what was chosen is in the agent's reply."""


def picks_option(text: str) -> bool:
    """Whether ``text`` names one of the agent's options by position or standing (docs/capture.md, Decisions)."""
    return bool(_PICK.search(text))
_REQUEST: Final = re.compile(
    r"\b(?:i want (?:you )?to|i want|i'd like|i would like|i need|we need|we should|you should|we'll need"
    r"|we will need|need to|should (?:be|have|use|just|not|only|say|show|stay)|must|can you|could you|would you"
    r"|kindly|please|instead of|change (?:that|it|this) to|i(?:'ve| have)? decided|(?:let's |we'll )?go with"
    r"|stick with|go back to|switch (?:back )?to|revert to)\b"
    # "we can drop vamp.md …", "i think we can cut the /note-why": a change put softly is still asked for (round 15);
    # "so that we can …" gives a purpose, not an order, and "we can add video sharing … after" puts it off.
    r"|(?<!so that )\bwe can (?:now |just |also |probably |safely )?(?=(?:add|apply|cut|delete|drop|remove|rename"
    r"|replace|skip|move|merge|switch|use|keep|change|simplify|split|combine)\b)(?![^.!?]*\b(?:later|after)\b)",
    re.I,
)
_ZH_REQUEST: Final = re.compile(
    r"请|帮我|帮忙|把|将|改成|改为|修改|添加|增加|加上|删除|移除|去掉|使用|需要|应该|要求|实现|调整|移动|移到|合并|重构|参考|按照"
    r"|换成|替换|优化|确保|保持|先|然后|再|生成|创建|新建|写|更新|拆分|处理"
)
_PREFERENCE: Final = re.compile(
    r"^(?:please )?(?:don'?t|do not|avoid|stop|no more)\b"
    r"|(?<!\bi )(?<!\bwe )\b(?:don'?t|do not|never)\s+(?!know|see|think|understand|remember|get|mind|care|really|need"
    r"|have|even)\w+"
    # "I/we don't" states a rule only with a verb of will ("I don't want …", "we don't use …"); with any other verb
    # it tells how things are ("I dont receive error", "if … aren't created, we don't create them").
    r"|\b(?:i|we) (?:don'?t|do not|never) (?:want|like|wish|prefer|use|allow|accept)\b"
    # … but not a dislike of one quoted piece of the output (`_DISLIKES_SHOWN`).
    r"(?! to see\b| the [\"“'])"
    r"|\b(?:doesn'?t|does not|won'?t|will not|shouldn'?t|should not|mustn'?t|must not|can'?t|cannot)\s+"
    r"(?:create|use|change|add|include|run|show|touch|modify|call|print|log|depend|break|require|rely|contain"
    r"|mention|name|be|emphasi[sz]e|rewrite|introduce|delete|remove|overwrite|chain)\b"
    # "should NOT" in capitals forbids whatever verb follows, as "Do NOT rewrite …" does ("This should NOT appear in
    # non-verbose", "we probably should NOT file issues in this way"); a plain "you should not limit to just 30
    # frames" corrects this one design (docs/capture.md, round 17).
    r"|(?-i:\b(?:should|SHOULD) NOT\s+(?!have to\b)[^\W\d_]+)"
    # How a thing is to be, set against what it is not: "Claude Rule should appear as "Claude Rule", not just "Rule"",
    # "the map should get coordinates …, not a device name" (round 17).
    r"|\bshould\b[^.;!?]*?,\s*not\b"
    # A step tied to one that recurs is a habit ("we should run the prettier formatter on the README before committing
    # it", "commit always before updating"), not this turn's work (round 17).
    r"|\bbefore (?:every |each |any )?(?:commit(?:ting|s)?|push(?:ing|es)?|merg(?:e|es|ing)|deploy(?:ing|s)?"
    r"|releas(?:e|es|ing)|publish(?:ing)?)\b"
    # A default is how the thing behaves from now on ("make it optional (by default it just applies changes)", "Don't
    # delete by default"); "the README should just indicate what happens by default" asks for words, and "the shell
    # command is not installed by default" tells how a tool is (round 17).
    r"|(?<!happens )(?<!ed )\bby default\b"
    # What the user asks the agent to keep in its memory holds for the rest of the project ("I want to save this "style"
    # of OOP … in the rest of my project, … a user memory section … CLAUDE.md", "写下这个项目的记忆："); "Add it to
    # Project-level memory" only says where, and a program's memory ("write the cache to memory") is no store of the
    # agent's (round 17).
    r"|\b(?:save|write|record|store|remember|keep)\b(?! (?:it|them|that) (?:to|in|into)\b)[^.!?]*?"
    r"(?:\b(?:your|my|user|project)[ -](?:level )?memory\b|\bmemory (?:section|file|bank)\b|\bclaude\.md\b"
    r"|\bagents\.md\b)|(?:写|记)[^，。！？]{0,6}记忆"
    # How every one of a kind is to be ("So each package should just handle their own arguments", "Each step should
    # compile and pass clippy before proceeding"), said of the kind as the sentence's subject (round 17).
    r"|^(?:so |and |then )?(?:each|every|all) [\w-]+(?: [\w-]+)? (?:should|must|needs? to|has to)\b"
    r"|\b(?:always|never|from now on|going forward|in (?:the )?future|must|should always|should never"
    r"|remember (?:to|that)"
    r"|i (?:prefer|'d rather|would rather)|rather than|as (?:simple|short|concise) as possible"
    # A rule's "make sure" says how to work ("make sure to …", "make sure you never …", "make sure your …") or forbids
    # something in every result ("make sure there's still no 2+ consecutive hyphens"). "make sure everything's
    # working" and "make sure that you implemented the logic" check this step's work, and "a way to make sure that …
    # is secured" is the purpose of the request (docs/capture.md, round 13).
    r"|make sure (?:to|your?|that you|(?:that )?(?:there(?:'s| is| are) )?(?:still )?(?:no|not|nothing|none|never)\b)"
    r"(?! (?:\w+ly )?\w+ed\b)"
    r"|keep (?:it|them|things|everything|all \w+) (?:simple|short|concise|as is|unchanged|minimal)"
    r"|only (?:trim|change|touch|use|update|modify|add|keep|allow|show|run)|overly \w+"
    r"|too (?:much|many|long|complex|complicated|verbose)"
    # The user keeps a step for themselves: "i'll test manually", "run it, then i'll tell you".
    r"|i(?:'ll| will) (?:\w+ ){0,4}?(?:manually|myself|tell you|let you know|inspect|check (?:it|them) myself))\b",
    re.I,
)
SCOPE_LIMIT: Final = re.compile(
    r"\b(?:just|only|keep)\b[^.?!]{0,60}\bfor now\b"
    r"|\b(?:don'?t|do not) (?!know|have|think|see|understand|need)\w+(?: \w+){0,4} yet\b"
    r"|\b(?:we|i)(?:'ll| will) [^?!]{0,60}\blater\b"
    r"|\bwithout (?:implementing|changing|making|touching|writing|modifying|editing) (?:any|the)\b",
    re.I,
)
"""A limit on how far the work goes for the time being ("don't implement the plan yet", "just make those changes
for now. we'll make process_with_ai.py more flexible later", "tell me your thoughts without implementing any code
changes"): it holds until the user lifts it, so it is a constraint as well as what it defers."""
_MOVED: Final = re.compile(
    r"\bshould(?:n'?t| not) be\b.{0,120}?"
    r"(?:\b(?:it|they|this|that|these|those) should be\b|,\s*(?:so|therefore|then)\b)",
    re.I,
)
"""A thing that is not as it should be, and what to do about it, in one sentence: an order about this thing."""
_CONVENTION: Final = re.compile(
    r"\bfollows? (?:(?:this|the|that|our|a|common|same|usual|standard|conventional)\s+)*(?:[\w-]+\s+)?"
    r"(?:pattern|convention)s?\b",
    re.I,
)
"""A convention to keep ("write commits. follow common git pattern.", "One last refactor so PR titles follow this
pattern "HOR-8: …""): a rule for every such thing, and the work of bringing things to it (round 17)."""
_DISLIKES_SHOWN: Final = re.compile(r"\b(?:i|we) (?:don'?t|do not) (?:want to see|like the [\"“'])", re.I)
"""A dislike of one quoted piece of the output ("i dont want to see "Keine Daten" rather just a empty String", "I dont
like the "Use Cursor, Claude, Github, etc""): an order to change what is shown, not a rule (round 17)."""
_BRIEF: Final = re.compile(
    r"\b(?:make (?:it|them|this|that|the \w+|your \w+) (?:more )?(?:concise|brief|succinct)|avoid verbosity"
    r"|be (?:more )?(?:concise|brief|succinct)|(?:less|not so|not too) verbose|step[- ]by[- ]step)\b",
    re.I,
)
"""How the agent is to answer and write ("If you propose a fix, please make it concise.", "avoid verbosity.", "explain
how it works step by step in english", "where do I get my api key? and how step by step"): a rule on the manner of
its answers, however few its words (round 17)."""
_ALWAYS_DESCRIBES: Final = re.compile(
    r"\b(?:is|are|was|were|it'?s|its|isn'?t|aren'?t|not) always\b|\balways (?:the same|equal)\b"
    r"|\bthe same \w+ always\b|\b(?:and|or) always (?:if|when)\b"
    r"|\balways\s+(?=[\"'“‘´`@(\d]|(?:as|one|two|three|four|a|an|the)\b)",
    re.I,
)
""""always" that tells how things are, not how the agent must work: "the UI is not always updated", "the
datastructure for all Periods is always the same", "its always 0 - currentPeriod" describe the code or the data.
A rule's "always" leads a verb ("always use …"); followed by a value, a number or "as" it describes one
("Bewilligt - always 'kein Wert'", "we got always two values", "the key … always as first column", Verilog's
"always @(...)")."""
_STANDING: Final = re.compile(
    # Making one new thing for all the views or cards ("I want to add Navigation for all input views", "Generate a new
    # SVG … for all the car cards") is this turn's work, not how every such thing is to be (docs/capture.md, round 13).
    r"^(?!(?:(?:i|we) (?:want|need|would like|'d like) (?:you )?to )?"
    r"(?:add|create|generate|build|implement|introduce)\b)"
    r".*?\b(?:in|for|across|to) (?:all|every|each)\b"
    # "next to each other", "in each of these cases", "to each .js file you created": these things, not a class
    r"(?! other\b| of (?:these|those|the|them|your)\b)"
    r"(?!(?:[^.,;:]|\.(?=\w)){0,40}\b(?:you|we)(?:'ve| have)?(?: just| been)? "
    r"(?:created|made|added|wrote|written|changed|edited)\b)"
    r"|全部|所有|一律|统一", re.I
)
_ZH_STANDING: Final = frozenset({"全部", "所有", "一律", "统一"})
"""The Chinese words of `_STANDING`: in Japanese "全部プッシュして" pushes all of this session, once."""
_ONLY_PRONOUN: Final = re.compile(r"\b(?:that|this|it|them|those)\W*$", re.I)
"""A short rule whose object is only a pronoun ("we don't want that") names nothing to keep."""
_NOT_A_RULE: Final = re.compile(
    r"\b(?:don'?t need to do anything|just an fyi|no need to do anything)\b|^(?:还是|仍然|依然)(?:不|没|一样|报错)",
    re.I,
)
"""Not a standing rule: "you don't need to do anything", or a complaint that something still fails (还是不行)."""
_ZH_PREFERENCE: Final = re.compile(
    r"不要|别|不能|不需要|不用|只|必须|始终|一直|总是|务必|保持|而不是|不应|禁止|尽量|简洁"
)
_CORRECTION: Final = re.compile(
    r"^(?:no(?:\s*,?\s*no)*\b(?!\s+(?:need|problem|worries))|nope|wrong|that'?s (?:not|wrong|incorrect)"
    r"|that is not|this is not what|not what i|you (?:literally |just )?(?:did|made|got|broke|missed|forgot|ignored"
    r"|hardcoded|changed|removed|deleted|misunderstood)|i (?:said|told you|meant|asked)|i don'?t think you"
    r"|actually\b|why did you)",
    re.I,
)
_BARE_NO: Final = re.compile(r"^(?:no(?:\s*,?\s*no)*|nope|nah)\b[\s,.!:;—–-]*(?!you\b|i\b|that'?s\b|this is\b)\S", re.I)
"""A "no" that goes on to tell what happened, not what the agent did or what the user said."""
_DISAPPROVES: Final = re.compile(
    r"\b(?:(?:it'?s|this is|that'?s) (?:a )?(?:really |very )?(?:bad|terrible|awful|horrible|weird|wrong)"
    r" (?:design|idea|approach|architecture)|looks? (?:like )?(?:shit|crap|garbage|terrible|awful|horrible)"
    r"|(?:insane|ridiculous|absurd) (?:amount|number) of)\b",
    re.I,
)
"""A judgement of what the agent made ("It's bad design", "The styling looks like shit", "These are an insane amount
of questions"): the user corrects it, though no "no" or "actually" opens the message."""
_ZH_CORRECTION: Final = re.compile(r"^(?:不对|不是这样|错了|你(?:又|把|没有|没)|不是我)")
_DEFER: Final = re.compile(
    r"\b(?:not now|not yet|later on|do (?:it|that|this) later|skip (?:this|that|it) for now"
    r"|hold off|postpone|leave (?:it|that|this) for|don'?t do anything|don'?t implement|not (?:right )?now"
    r"|come back to (?:it|this|that))\b",
    re.I,
)
_ZH_DEFER: Final = re.compile(r"暂时不|先不|以后再|稍后|暂不|之后再|先放|不急")
_APPROVAL: Final = re.compile(
    r"^(?:yes|yep|yeah|yup|y|ok(?:ay)?|sure|go ahead|go for it|do it|proceed|continue|sounds good|looks good|lgtm"
    r"|(?:this|that) (?:is|looks|sounds) (?:a )?(?:good|great|fine)(?: plan| idea| approach)?|good plan|great"
    r"|perfect|correct|agreed|confirm(?:ed)?|approved?|let'?s do (?:it|that|this)|i like (?:it|that)"
    r"|just kidding)\b",
    re.I,
)
_ZH_APPROVAL: Final = re.compile(r"^(?:确认|好的?|可以|行|同意|没问题|继续|就这样|按你说的|是的|对)")
_ZH_BARE_YES: Final = re.compile(r"^(?:确认|好的?|可以|行|同意|没问题|是的|对)[。！!.,，]*$")
"""A Chinese yes and nothing else (确认, 好的): with nothing offered it acknowledges, as "ok" does."""
_REJECTION: Final = re.compile(r"^(?:no|nope|nah|don'?t|not now|no thanks|no,? thanks|no need)[.!]*$", re.I)
_ZH_REJECTION: Final = re.compile(r"^(?:不|不用|不要|不需要|算了)[。！!]*$")
_ACK: Final = re.compile(
    r"^(?:(?:thanks?|thank you|thx|ty|great|perfect|nice|cool|awesome|fantastic|it works|works|that works"
    r"|works now|things work now|bye|hi|hello|hey|你好|您好)\b[\s,.!:;)\-]*)+$",
    re.I,
)
_QUESTION_START: Final = re.compile(
    r"^(?:what|why|how|where|when|which|who|is|are|was|were|does|do|did|can|could|would|should|will|any idea"
    r"|help me understand|tell me|explain)\b",
    re.I,
)
_ZH_QUESTION: Final = re.compile(
    r"(?:吗|呢|么|什么|怎么|为什么|如何|是否|哪)[。]?$|是不是|能不能|有没有|可不可以|会不会|要不要|哪些|哪个|多少"
    r"|为什么|怎么(?:办|做|回事|修|改|解决|实现|处理)"
    # "我应该做些什么来完成这个任务", "我需要配置什么环境", "接下来该做些什么了", "我自己该怎么运行": the user asks what
    # should be done, with no question mark;
    # a clause after a comma may give the user's own answer ("我该怎么…迁入unity,我想的是直接…调c++的库").
    r"|(?:应该|需要|该)[^，。,！？]{0,12}?(?:什么|如何|怎么|怎样|哪)[^，,]*$"
)
_CODE_LINE: Final = re.compile(r"^\s*(?:[➜$>#]|at |\[\w+\]|\w+:\d+|[{}()\[\];<]|//|/\*|\*|import |from |const |let |"
                               r"def |function |return |\d+ \||[\w./-]+\.\w+:\d+)")


_FAILS: Final = re.compile(
    r"\b(?:still|(?:does|did|is|was|do|are)(?:n'?t| not) (?:\w+ )?(?:work|fix|load|show|appear|change|navigate"
    r"|open|close|render|run|build|compile)|error|exception|fail(?:s|ed|ing)?|broken|wrong|same (?:error|issue"
    r"|problem)|no (?:effect|change)|but not|work(?:s|ed)?,? but)\b"
    r"|还是|仍然|依然|报错|错误|失败|不行|没有(?:效果|反应|变化)|không",
    re.I,
)
"""A user message that says the last attempt failed ("still returns 404", "that did not fix it", 还是 404)."""
_DID_STEP: Final = re.compile(
    r"^(?:i(?:'ve| have)? (?:just |now |already )?(?:copied|ran|run|executed|installed|added|applied|created|moved"
    r"|deleted|removed|uploaded|restarted|renamed|pasted|set|did|done)|(?:ran|executed|applied|installed)\b)",
    re.I,
)
"""The user reports doing a step themselves ("I copied the assets directory", "ran the command in an external
window")."""
_WH_ASKS: Final = re.compile(r"^(?:what|why|how|where|when|which|who)\s+(?:should|do|does|did|can|could|would|shall"
                             r"|will)\s+(?:i|we|you|it|they|this|that)\b", re.I)
"""A question without its mark: "what should I work on next", "how do I …" (round 15: it read as a "works" report)."""
_WORKS: Final = re.compile(r"\b(?:works?|working|fixed|solved|resolved)\b|成功|好了|可以了|解决了", re.I)
"""A statement that something now works: the user confirms, and asks for nothing."""


_STILL_NOT: Final = re.compile(
    r"\bstill (?:\w+ ){0,3}?(?:not|no|doesn'?t|don'?t|isn'?t|aren'?t|won'?t|can'?t|didn'?t)\b"
    r"|\b(?:does|did|is|was|do|are)(?:n'?t| not) (?:\w+ )?(?:work|fix|load|show|appear|change|navigate|open|close"
    r"|render|run|build|compile)\b",
    re.I,
)
"""The failure forms a question can carry and still report the failure ("seems Mistral still does not get the
realtime data first?"); a bare "still" ("is this still needed?") or "error" in a question asks about it."""
_ASKS_WHY: Final = re.compile(r"\b(?:why|how come|how|what)\b|为什么|为何|怎么|なぜ|どうして", re.I)
"""A question about why or how something fails asks for an explanation, which a reply gives (docs/capture.md)."""


def says_failure(text: str) -> bool:
    """Whether ``text`` says that something still fails or the last attempt did not work."""
    return bool(_FAILS.search(text))


def asks_whether_fixed(turn: UserTurn) -> bool:
    """Whether a question of ``turn`` reports that the last attempt still fails ("… still does not get the realtime
    data first?") without asking why or how: a failure report, however punctuated (docs/capture.md, Closing)."""
    return any(s.question and _STILL_NOT.search(s.text) and not _ASKS_WHY.search(s.text) for s in turn.sentences)


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of a user message and what its form says."""

    text: str
    question: bool
    instruction: bool
    preference: bool
    deferral: bool


@dataclass(frozen=True, slots=True)
class UserTurn:
    """A user message read as conversation acts."""

    text: str
    """The user's words (harness removed), whitespace kept."""
    acts: frozenset[Act]
    sentences: tuple[Sentence, ...]

    def has(self, act: Act) -> bool:
        """Whether the message does ``act``."""
        return act in self.acts


def _words(text: str) -> int:
    # Chinese and Japanese write no spaces: about two characters make a word.
    return len(_WORD.findall(text)) + (len(_CJK.findall(text)) + len(KANA.findall(text))) // 2


def word_count(text: str) -> int:
    """How many words ``text`` holds, Chinese and Japanese counted at about two characters a word."""
    return _words(text)


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` outside fenced code, whitespace collapsed, without list markers."""
    prose: list[str] = []
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if not fence:
            prose.append(line)
    out: list[str] = []
    for part in _SPLIT.split("\n".join(prose)):
        part = re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", part or "").strip()
        if part:
            out.append(" ".join(part.split()))
    return out


_LOG_LINE: Final = re.compile(r"^[A-Z]{3,7}\s+(?:https?://|/)")
"""A logged HTTP request ("GET https://… 401"), not the verb "get"."""


_ASKS_TO_DO: Final = re.compile(
    r"^(?:can|could|would|will) (?:you|we) (?!(?:explain|tell|show|help me understand|describe|see|think)\b)"
    r"|^(?:can|could) (?:the |this |that |these |those )?[\w.&@/ -]{1,60}? be (?:changed|made|moved|converted|replaced"
    r"|updated|rewritten|turned)\b|^is it possible to\b",
    re.I,
)
"""A request put as a question ("Can TermsScreen.tsx be changed so that it appears as a popup?", "could you move …
?"): it asks for work, not for an answer."""
_DESIRED: Final = re.compile(
    r"^(?:[\"'“‘`]?[^\W\d_][\w'\".#@/`’”-]*\s+){1,8}?(?:should|must|needs? to|has to)\s+"
    r"(?!work\b|be (?:fine|ok|okay|enough|good)\b|fix\b|solve\b|help\b|do it\b|i\b|we\b)\w+",
    re.I,
)
"""A statement of how a thing is to be ("The 'my videos' section should dynamically display any videos from the
database", "the page should remain recognizable"): an instruction in the form of a description; not a hope that
something works ("this should fix it")."""


_PLACE: Final = re.compile(r"^(?:in|on|inside|within|under|based on|referring to|according to|following|given)\s+",
                           re.I)
"""Where an order applies, or what it follows ("Based on the ent.xml make some changes", "Referring to the update in
@CLAUDE.md , create tests …", round 18); not "for each value, …", which in a spec says how to compute, not where to
act."""
_PLACE_THING: Final = re.compile(r"[/.#`_]|:\d")


def after_place(core: str) -> str | None:
    """The order after a place named first ("in each engines/ module implement simple functions", "in
    #file:update-paths.js:22-23 , state that …", "in this app, look at …"), or ``None``: the place is a path or
    code, or a comma ends it, and an imperative follows."""
    lead = _PLACE.match(core)
    if not lead:
        return None
    words = core[lead.end():].split(" ")
    for n in range(1, min(len(words), 9)):
        place, rest = " ".join(words[:n]), " ".join(words[n:]).lstrip(", ")
        if (place.endswith(",") or _PLACE_THING.search(place) or rest != " ".join(words[n:])) and \
                _IMPERATIVE.match(_LEAD.sub("", rest)):
            return rest
    return None


def _read_sentence(text: str) -> Sentence:
    text = text.replace("’", "'")  # "I’d like" typed with a typographic apostrophe is "I'd like"
    core = _LEAD.sub("", text).strip()
    cjk = bool(_CJK.search(core))
    ja = bool(KANA.search(core))  # Japanese marks an order at the sentence's end (language/japanese.py)
    question = core.endswith(("?", "？")) or (cjk and bool(_ZH_QUESTION.search(core)))
    ko = read_korean(core) if HANGUL.search(core) else None  # Korean marks acts at the end too (language/korean.py)
    if ko is not None:
        question = ko.question  # "…해줄래?" asks for work
    if not question and not cjk and _QUESTION_START.match(core) and _words(core) <= 25 and not _IMPERATIVE.match(core):
        question = core.lower().startswith(("help me understand", "tell me", "explain")) or bool(_WH_ASKS.match(core))
    instruction = not _LOG_LINE.match(core) and bool(
        _IMPERATIVE.match(core) or _REQUEST.search(text) or (cjk and _ZH_REQUEST.search(core))
        or (not question and (_DESIRED.match(core) or _CONVENTION.search(core) or _DISLIKES_SHOWN.search(core)))
        or (not question and _PICK.search(core) and _words(core) <= 12)
        or any(_IMPERATIVE.match(_LEAD.sub("", core[m.end():])) for m in _CLAUSE_LEAD.finditer(core))
        or after_place(core) is not None
        or (ja and not question and bool(JA_REQUEST.search(core) or JA_WANT.search(core)))
        or (ko is not None and not question and ko.request))
    if question and not cjk and _ASKS_TO_DO.match(core):
        question, instruction = False, True
    deferral = bool(_DEFER.search(core) or (cjk and _ZH_DEFER.search(core)) or (ko is not None and ko.deferral))
    # A rule stands beyond this turn: "not now" is a deferral, and "we don't want that" names nothing.
    ruled = _ALWAYS_DESCRIBES.sub(" ", core) if "always" in core.lower() else core
    # The Chinese table reads Chinese: in a Japanese sentence "不要" is "not needed" ("…一旦は不要でいいと
    # 思っています", "不要なブランチは…削除して"), not "don't", and "全部" is "all of it" in one order
    # (docs/capture.md, round 22).
    preference = bool(_PREFERENCE.search(ruled) or _CONVENTION.search(core)
                      or (cjk and not ja and _ZH_PREFERENCE.search(core))
                      or (ja and JA_PREFERENCE.search(core)) or (ko is not None and ko.rule)) and not deferral and (
        _words(core) >= 4) and not _NOT_A_RULE.search(core) and not (_words(core) <= 6 and _ONLY_PRONOUN.search(core))
    if not core.endswith(("?", "？")) and (SCOPE_LIMIT.search(text) or _BRIEF.search(core)):
        preference = True  # "tell me your thoughts without implementing any code changes" asks, and limits
    # An instruction that sets how a whole class of things is ("… camelCase in all .tsx files", 全部放在 @Physics 里)
    # or picks one thing over another ("use #!/bin/sh instead of powershell") stands beyond this turn.
    standing = _STANDING.search(after_place(core) or core)  # "for each value, get …" is where it applies, not a rule
    if instruction and not question and not deferral and not preference and standing and not (
            ja and standing.group(0) in _ZH_STANDING):
        preference = True
    if preference and _MOVED.search(core):
        # "this file shouldn't be in apps/api, it should be in the root": one thing put right now, not a rule.
        preference, instruction = False, True
    return Sentence(text, question, instruction, preference, deferral)


def _pasted(text: str) -> bool:
    """Mostly a pasted log, error or code: most non-empty lines look like output, not prose."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 4:
        return False
    code, fence = 0, False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            code += 1
        elif fence or _CODE_LINE.match(line) or _words(line) <= 2:
            code += 1
    return code / len(lines) >= 0.6


_ERROR_HEAD: Final = re.compile(
    r"^\s*(?:\w+[ \t]+){0,5}?(?:\w*error|exception|traceback|fatal|warning)\b[^:\n]{0,60}:[ \t]*\S", re.I)
"""A line that quotes an error ("error on user create account: Username cannot be …", "Error: The current project
could not be installed"): it and the lines right after it are the program's words, not the user's."""


def _quoted_output(text: str) -> str:
    """The quoted error blocks of ``text``, flattened: each from an error line to the next blank line."""
    blocks: list[str] = []
    inside = False
    for line in text.splitlines():
        if not line.strip():
            inside = False
        elif inside or _ERROR_HEAD.match(line):
            inside = True
            blocks.append(line)
    return " ".join(" ".join(blocks).split())


def _pasted_sentences(text: str) -> frozenset[str]:
    """The sentences of ``text`` that lie only in pasted lines (docs/capture.md, Pasted material)."""
    pasted = pasted_lines(text)
    if not pasted:
        return frozenset()
    lines = text.splitlines()
    own = "\n".join("" if i in pasted else line for i, line in enumerate(lines))
    theirs = "\n".join(line if i in pasted or line.lstrip().startswith(("```", "~~~")) else ""
                       for i, line in enumerate(lines))
    # Compared as `_read_sentence` keeps them: with typographic apostrophes read as straight ones.
    return frozenset(s.replace("’", "'") for s in set(sentences(theirs)) - set(sentences(own)))


_LIST_ITEM: Final = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+•]|\d+[.)])\s+(?P<rest>\S.*)$")


def copied_list_items(text: str) -> frozenset[str]:
    """The sentences of list items indented with no list item at the margin above them in their block: a terminal
    indents what it prints, and a user's own nested list has its parent item (docs/capture.md, round 17)."""
    if "\n " not in text and "\n\t" not in text:
        return frozenset()
    copied: set[str] = set()
    top = False
    for line in text.splitlines():
        item = _LIST_ITEM.match(line)
        if not line.strip():
            top = False
        elif item and not item["indent"]:
            top = True
        elif item and len(item["indent"].expandtabs(4)) >= 2 and not top:
            copied.update(s.replace("’", "'") for s in sentences(item["rest"]))
    return frozenset(copied)


def read_user_turn(text: str, agent_offered: bool) -> UserTurn:
    """The acts of a user message ``text`` (harness already removed).

    Args:
        agent_offered: the agent's last turn ended by asking or offering something (a proposal to answer).
    """
    parts = [_read_sentence(s) for s in sentences(text)]
    output = _quoted_output(text) if ":" in text else ""
    if output:
        # A quoted error's "cannot be of email format" or "use --no-root" is the program speaking: no rule, no order.
        parts = [replace(p, instruction=False, preference=False) if p.text in output else p for p in parts]
    foreign = _pasted_sentences(text)
    if foreign:
        # A pasted page's "You must be signed in" or an article's "Install Cursor …" is not the user's rule or order.
        parts = [replace(p, instruction=False, preference=False, question=False) if p.text in foreign else p
                 for p in parts]
    acts: set[Act] = set()
    flat = " ".join(text.split())
    first = _LEAD.sub("", parts[0].text).strip() if parts else ""
    short = _words(flat) <= 12
    if _pasted(text):
        acts.add("reports")
    if _ACK.match(flat) or KO_ACK.match(flat):
        acts.add("acknowledges")
    if agent_offered and (_REJECTION.match(flat) or _ZH_REJECTION.match(flat) or KO_REJECTION.match(flat)):
        acts.add("rejects")
    elif agent_offered and short and parts and (_APPROVAL.match(parts[0].text) or _ZH_APPROVAL.match(parts[0].text)
                                                or KO_APPROVAL.match(parts[0].text)):
        acts.add("approves")  # a long message that starts "great, …" goes on to say something of its own
    # A judgement corrects as an opening "no" does; it may follow the question it answers ("But why do I have to
    # provide api_key there? It's bad design."), so the first two sentences are read.
    if parts and (_CORRECTION.match(first) or _ZH_CORRECTION.match(first) or KO_CORRECTION.match(first)
                  or any(_DISAPPROVES.search(p.text) for p in parts[:2])) and "rejects" not in acts:
        acts.add("corrects")
    if "corrects" in acts and _BARE_NO.match(first) and _FAILS.search(first) and not any(
            p.instruction or p.preference for p in parts):
        # "No the video doesn't load in the modal. Console error: …", "Nope, still not adjusting to dark mode": the
        # last attempt failed; the user sets no direction and no rule (docs/capture.md, Conversation acts).
        acts.discard("corrects")
        acts.add("reports")
    for part in parts:
        if part.deferral:
            acts.add("defers")
        if part.question:
            acts.add("asks")
        if part.instruction and not part.question:
            acts.add("instructs")
        if part.preference and not part.question:
            acts.add("prefers")
    if short and not agent_offered and parts and len(parts) == 1 and (
            _APPROVAL.match(parts[0].text) or _ACK.match(parts[0].text) or _ZH_BARE_YES.match(parts[0].text)
            or KO_BARE_YES.match(parts[0].text)):
        acts = {"acknowledges"}  # "ok go ahead", 确认 with nothing offered asks for nothing new
    if "approves" in acts and _words(flat) <= 4 and not acts & {"asks", "prefers", "defers"}:
        acts = {"approves"}  # "ok go ahead", "yes do it": the yes itself, not a new request to "go"
    if not acts and parts:
        # Neither asks, instructs nor answers: the user tells the agent how things stand. "Everything works" confirms;
        # anything else ("there is now an unclosable modal", a pasted result) is a report the agent should act on.
        confirms = _WORKS.search(flat) and not _FAILS.search(flat) and _words(flat) <= 30 and "\n" not in text.strip()
        # "I copied the assets directory": the user did the step the agent asked for; it asks for nothing new.
        did_step = _DID_STEP.match(first) and not _FAILS.search(flat) and _words(flat) <= 20
        acts.add("acknowledges" if confirms or did_step else "reports")
    return UserTurn(text, frozenset(acts), tuple(parts))
