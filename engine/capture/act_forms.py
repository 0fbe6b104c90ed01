"""The forms of each conversation act, English and Chinese: the patterns a sentence of a user message is matched
against for a lead word, an imperative or request, a standing preference, a correction, a deferral, an approval or
rejection, an acknowledgement, a question, and a report that something still fails (docs/capture.md, Conversation
acts). Japanese and Korean forms are in ``language/``; :mod:`engine.capture.acts` reads a message with them."""

from __future__ import annotations

import re
from typing import Final

LEAD: Final = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|also|and|then|great|greatt|fantastic|phenomenal|perfect|nice|cool|good|alright"
    r"|hmm+|well|but|moreover|finally|first|next|kindly|please|pls|lastly|additionally|another thing"
    r"|small update|one more thing|oh|therefore|hence|thus|instead|just|simply)\b[\s,.!:;—–-]*"
    # Files attached by mention ("@pplx.py @serpapi.py Now add …") stand before the words, not in them.
    r"|@[^\s@]+\s+)+",
    re.I,
)
IMPERATIVE: Final = re.compile(
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
CLAUSE_LEAD: Final = re.compile(
    r"[,;:]\s*(?:so|therefore|then|and then|please|kindly|now|also|and|but)[\s,]+(?:please\s+)?"
    r"|\s(?:so|therefore)\s+(?!that\b)", re.I
)
"""A clause that a run-on message starts after a comma, or after "so" without one: "…, therefore, classify them
into jobs", "just the one main option so get rid of the other approach"."""
PICK: Final = re.compile(
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
    return bool(PICK.search(text))
REQUEST: Final = re.compile(
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
ZH_REQUEST: Final = re.compile(
    r"请|帮我|帮忙|把|将|改成|改为|修改|添加|增加|加上|删除|移除|去掉|使用|需要|应该|要求|实现|调整|移动|移到|合并|重构|参考|按照"
    r"|换成|替换|优化|确保|保持|先|然后|再|生成|创建|新建|写|更新|拆分|处理"
)
PREFERENCE: Final = re.compile(
    r"^(?:please )?(?:don'?t|do not|avoid|stop|no more)\b"
    r"|(?<!\bi )(?<!\bwe )\b(?:don'?t|do not|never)\s+(?!know|see|think|understand|remember|get|mind|care|really|need"
    r"|have|even)\w+"
    # "I/we don't" states a rule only with a verb of will ("I don't want …", "we don't use …"); with any other verb
    # it tells how things are ("I dont receive error", "if … aren't created, we don't create them").
    r"|\b(?:i|we) (?:don'?t|do not|never) (?:want|like|wish|prefer|use|allow|accept)\b"
    # … but not a dislike of one quoted piece of the output (`DISLIKES_SHOWN`).
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
    # "always" makes a rule when the sentence is the rule ("always use …", "commit always before updating"); inside a
    # sentence that specifies the program ("…, so always check before alowing an update", "we want to run
    # `runOnComplete` always not only in success case") it says what the code does (docs/capture.md, round 28).
    r"|^(?:[\w-]+ )?always\b"
    # "must" binds the agent when it or the user is its subject ("you must …", "we must always …"); said of a thing
    # it specifies what this turn's work is to hold ("The plan must include some way to monitor and …", "must be
    # updated to support the standards of this project.", docs/capture.md, round 31).
    r"|\b(?:never|from now on|going forward|in (?:the )?future|(?:you|we) must|must always|should always"
    r"|should never"
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
MOVED: Final = re.compile(
    r"\bshould(?:n'?t| not) be\b.{0,120}?"
    r"(?:\b(?:it|they|this|that|these|those) should be\b|,\s*(?:so|therefore|then)\b)",
    re.I,
)
"""A thing that is not as it should be, and what to do about it, in one sentence: an order about this thing."""
CONVENTION: Final = re.compile(
    r"\bfollows? (?:(?:this|the|that|our|a|common|same|usual|standard|conventional)\s+)*(?:[\w-]+\s+)?"
    r"(?:pattern|convention)s?\b",
    re.I,
)
"""A convention to keep ("write commits. follow common git pattern.", "One last refactor so PR titles follow this
pattern "HOR-8: …""): a rule for every such thing, and the work of bringing things to it (round 17)."""
DISLIKES_SHOWN: Final = re.compile(r"\b(?:i|we) (?:don'?t|do not) (?:want to see|like the [\"“'])", re.I)
"""A dislike of one quoted piece of the output ("i dont want to see "Keine Daten" rather just a empty String", "I dont
like the "Use Cursor, Claude, Github, etc""): an order to change what is shown, not a rule (round 17)."""
BRIEF: Final = re.compile(
    r"\b(?:make (?:it|them|this|that|the \w+|your \w+) (?:more )?(?:concise|brief|succinct)|avoid verbosity"
    r"|be (?:more )?(?:concise|brief|succinct)|(?:less|not so|not too) verbose"
    r"|(?:explain|state|describe|tell|show|how)\b[^.;!?]*?\bstep[- ]by[- ]step)\b",
    re.I,
)
"""How the agent is to answer and write ("If you propose a fix, please make it concise.", "avoid verbosity.", "explain
how it works step by step in english", "where do I get my api key? and how step by step"): a rule on the manner of
its answers, however few its words (round 17). "step by step" is that manner only after a verb of telling: "Let's walk
this through step by step until we find the fuck up" is how one bug is worked through now, and "create an step by
step guide for me" names the thing to make (docs/capture.md, round 31)."""
ALWAYS_DESCRIBES: Final = re.compile(
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
STANDING: Final = re.compile(
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
ZH_STANDING: Final = frozenset({"全部", "所有", "一律", "统一"})
"""The Chinese words of `STANDING`: in Japanese "全部プッシュして" pushes all of this session, once."""
ONLY_PRONOUN: Final = re.compile(r"\b(?:that|this|it|them|those)\W*$", re.I)
"""A short rule whose object is only a pronoun ("we don't want that") names nothing to keep."""
NOT_A_RULE: Final = re.compile(
    r"\b(?:don'?t need to do anything|just an fyi|no need to do anything)\b|^(?:还是|仍然|依然)(?:不|没|一样|报错)",
    re.I,
)
"""Not a standing rule: "you don't need to do anything", or a complaint that something still fails (还是不行)."""
ZH_PREFERENCE: Final = re.compile(
    r"不要|别|不能|不需要|不用|只|必须|始终|一直|总是|务必|保持|而不是|不应|禁止|尽量|简洁"
)
CORRECTION: Final = re.compile(
    r"^(?:no(?:\s*,?\s*no)*\b(?!\s+(?:need|problem|worries))|nope|wrong|that'?s (?:not|wrong|incorrect)"
    r"|that is not|this is not what|not what i|you (?:literally |just )?(?:did|made|got|broke|missed|forgot|ignored"
    r"|hardcoded|changed|removed|deleted|misunderstood)|i (?:said|told you|meant|asked)|i don'?t think you"
    r"|actually\b|why did you)",
    re.I,
)
BARE_NO: Final = re.compile(r"^(?:no(?:\s*,?\s*no)*|nope|nah)\b[\s,.!:;—–-]*(?!you\b|i\b|that'?s\b|this is\b)\S", re.I)
"""A "no" that goes on to tell what happened, not what the agent did or what the user said."""
DISAPPROVES: Final = re.compile(
    r"\b(?:(?:it'?s|this is|that'?s) (?:a )?(?:really |very )?(?:bad|terrible|awful|horrible|weird|wrong)"
    r" (?:design|idea|approach|architecture)|looks? (?:like )?(?:shit|crap|garbage|terrible|awful|horrible)"
    r"|(?:insane|ridiculous|absurd) (?:amount|number) of)\b",
    re.I,
)
"""A judgement of what the agent made ("It's bad design", "The styling looks like shit", "These are an insane amount
of questions"): the user corrects it, though no "no" or "actually" opens the message."""
CORRECTS_THIS_TURN: Final = re.compile(r"^(?:actually|i meant|no,?\s+like)\b", re.I)
"""A correction of this turn's work that sets no rule: a new order opened by "actually" ("Actually orient the
GeneralInput.js on Goals.js not data.js, …") or what the order was ("i meant extracting it into a local package, not
publishing it as framework"; "no like use that to go through the file and give me a command …", round 31). It still
corrects, and may say what is wanted instead (a decision); it is no constraint (docs/capture.md, round 28)."""
JUDGES_LOOK: Final = re.compile(r"\blooks? (?:like )?(?:shit|crap|garbage|terrible|awful|horrible)\b", re.I)
"""A judgement of one look ("The styling looks like shit. There is a demo here …"): it asks for another look this
turn, no rule on how the agent works (round 28)."""
ZH_CORRECTION: Final = re.compile(r"^(?:不对|不是这样|错了|你(?:又|把|没有|没)|不是我)")
DEFER: Final = re.compile(
    r"\b(?:not now|not yet|later on|do (?:it|that|this) later|skip (?:this|that|it) for now"
    r"|hold off|postpone|leave (?:it|that|this) for|don'?t do anything|don'?t implement|not (?:right )?now"
    r"|come back to (?:it|this|that))\b",
    re.I,
)
ZH_DEFER: Final = re.compile(r"暂时不|先不|以后再|稍后|暂不|之后再|先放|不急")
APPROVAL: Final = re.compile(
    r"^(?:yes|yep|yeah|yup|y|ok(?:ay)?|sure|go ahead|go for it|do it|proceed|continue|sounds good|looks good|lgtm"
    r"|(?:this|that) (?:is|looks|sounds) (?:a )?(?:good|great|fine)(?: plan| idea| approach)?|good plan|great"
    r"|perfect|correct|agreed|confirm(?:ed)?|approved?|let'?s do (?:it|that|this)|i like (?:it|that)"
    r"|just kidding)\b",
    re.I,
)
ZH_APPROVAL: Final = re.compile(r"^(?:确认|好的?|可以|行|同意|没问题|继续|就这样|按你说的|是的|对)")
ZH_BARE_YES: Final = re.compile(r"^(?:确认|好的?|可以|行|同意|没问题|是的|对)[。！!.,，]*$")
"""A Chinese yes and nothing else (确认, 好的): with nothing offered it acknowledges, as "ok" does."""
REJECTION: Final = re.compile(r"^(?:no|nope|nah|don'?t|not now|no thanks|no,? thanks|no need)[.!]*$", re.I)
ZH_REJECTION: Final = re.compile(r"^(?:不|不用|不要|不需要|算了)[。！!]*$")
ACK: Final = re.compile(
    r"^(?:(?:thanks?|thank you|thx|ty|great|perfect|nice|cool|awesome|fantastic|it works|works|that works"
    r"|works now|things work now|bye|hi|hello|hey|你好|您好)\b[\s,.!:;)\-]*)+$",
    re.I,
)
QUESTION_START: Final = re.compile(
    r"^(?:what|why|how|where|when|which|who|is|are|was|were|does|do|did|can|could|would|should|will|any idea"
    r"|help me understand|tell me|explain)\b",
    re.I,
)
ZH_QUESTION: Final = re.compile(
    r"(?:吗|呢|么|什么|怎么|为什么|如何|是否|哪)[。]?$|是不是|能不能|有没有|可不可以|会不会|要不要|哪些|哪个|多少"
    r"|为什么|怎么(?:办|做|回事|修|改|解决|实现|处理)"
    # "我应该做些什么来完成这个任务", "我需要配置什么环境", "接下来该做些什么了", "我自己该怎么运行": the user asks what
    # should be done, with no question mark;
    # a clause after a comma may give the user's own answer ("我该怎么…迁入unity,我想的是直接…调c++的库").
    r"|(?:应该|需要|该)[^，。,！？]{0,12}?(?:什么|如何|怎么|怎样|哪)[^，,]*$"
)
CODE_LINE: Final = re.compile(r"^\s*(?:[➜$>#]|at |\[\w+\]|\w+:\d+|[{}()\[\];<]|//|/\*|\*|import |from |const |let |"
                               r"def |function |return |\d+ \||[\w./-]+\.\w+:\d+)")


FAILS: Final = re.compile(
    r"\b(?:still|(?:does|did|is|was|do|are)(?:n'?t| not) (?:\w+ )?(?:work|fix|load|show|appear|change|navigate"
    r"|open|close|render|run|build|compile)|error|exception|fail(?:s|ed|ing)?|broken|wrong|same (?:error|issue"
    r"|problem)|no (?:effect|change)|but not|work(?:s|ed)?,? but)\b"
    r"|还是|仍然|依然|报错|错误|失败|不行|没有(?:效果|反应|变化)|không",
    re.I,
)
"""A user message that says the last attempt failed ("still returns 404", "that did not fix it", 还是 404)."""
DID_STEP: Final = re.compile(
    r"^(?:i(?:'ve| have)? (?:just |now |already )?(?:copied|ran|run|executed|installed|added|applied|created|moved"
    r"|deleted|removed|uploaded|restarted|renamed|pasted|set|did|done)|(?:ran|executed|applied|installed)\b)",
    re.I,
)
"""The user reports doing a step themselves ("I copied the assets directory", "ran the command in an external
window")."""
WH_ASKS: Final = re.compile(r"^(?:what|why|how|where|when|which|who)\s+(?:should|do|does|did|can|could|would|shall"
                             r"|will)\s+(?:i|we|you|it|they|this|that)\b", re.I)
"""A question without its mark: "what should I work on next", "how do I …" (round 15: it read as a "works" report)."""
WORKS: Final = re.compile(r"\b(?:works?|working|fixed|solved|resolved)\b|成功|好了|可以了|解决了", re.I)
"""A statement that something now works: the user confirms, and asks for nothing."""


STILL_NOT: Final = re.compile(
    r"\bstill (?:\w+ ){0,3}?(?:not|no|doesn'?t|don'?t|isn'?t|aren'?t|won'?t|can'?t|didn'?t)\b"
    r"|\b(?:does|did|is|was|do|are)(?:n'?t| not) (?:\w+ )?(?:work|fix|load|show|appear|change|navigate|open|close"
    r"|render|run|build|compile)\b",
    re.I,
)
"""The failure forms a question can carry and still report the failure ("seems Mistral still does not get the
realtime data first?"); a bare "still" ("is this still needed?") or "error" in a question asks about it."""
ASKS_WHY: Final = re.compile(r"\b(?:why|how come|how|what)\b|为什么|为何|怎么|なぜ|どうして", re.I)
"""A question about why or how something fails asks for an explanation, which a reply gives (docs/capture.md)."""
