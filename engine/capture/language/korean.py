"""Korean forms of the conversation acts (docs/capture.md, Conversation acts; round 19).

Korean, like Japanese, says what a sentence does at its end: an order closes on a request ending after the verb
("정리해줘", "테스트 해봐", "기록해놔", "마무리 하자", "추가해 주세요", "진행해라"), a want on "-고 싶어" / "-면
좋겠어", a rule on "-지 마" / "-지 말고" or an adverb that holds beyond this turn ("앞으로", "항상", "절대"). A
speaker drops the object's particle freely ("마이그레이션 진행해줘" is "proceed with the migration"), so an order
names its object by any word before the verb, not only by 을 / 를. The Chinese and Japanese tables see none of this:
Hangul is neither kanji nor kana.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

__all__ = ["HANGUL", "KO_ACK", "KO_APPROVAL", "KO_BARE_YES", "KO_CORRECTION", "KO_REJECTION", "KoreanMarks",
           "korean_direction", "korean_examines", "read_korean"]

HANGUL: Final = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
"""Hangul syllables or letters (ㅇㅇ, ㅋㅋ): the sentence is Korean."""

_END: Final = r"(?:요)?[\s.!~^;,ㅎㅋ…]*$"
"""What may follow a sentence's ending: the polite 요, marks, laughter (ㅎㅎ, ㅋㅋ)."""

_ACTION_NOUNS: Final = (
    "진행|수정|추가|삭제|제거|변경|적용|구현|커밋|푸시|정리|생성|작성|실행|설치|배포|업데이트|테스트|저장|기록|반영"
    "|처리|개선|교체|이동|통일|분리|통합|연동|마무리|해결|복구|롤백|리팩토링|리팩터링|마이그레이션|빌드|재시작|설정"
    "|사용|활성화|비활성화|제외|포함|유지|검증|수행|등록|전환|변환|정렬|표시|출력|노출|고도화|최적화|갱신|초기화|연결"
    "|대응|보완|보강|동기화|배치|복사|작업|준비|점검|확인|체크|검토|분석|조사|리뷰|설명|파악"
)
"""Sino-Korean and loan nouns of action that take 하다 ("진행하다", "커밋하다"): "<noun>해" at a sentence's end is
an order to the agent, where "<adjective>해" ("중요해", "이상해") describes."""

_REQUEST: Final = re.compile(
    r"(?:"
    # "-어 주다" asked for: 해줘, 만들어 줘, 바꿔주세요, 해 주십시오, 해줄래
    r"주(?:세요|십시오|실래|시겠어|라)|줘|줄래"
    # plain and polite imperatives: 진행해라, 고쳐라, 하세요, 확인하십시오
    r"|(?:해|하|어|아|여|거)라|(?<!안녕)(?<!안녕하)(?:하|으)?세요|하십시오"
    # "let's": 하자, 마무리 하자, 막자, 넘어가자
    r"|(?:하|해보|보|가|막|빼|쓰|넣|두|놓|바꾸|만들|올리|고치|지우|줄이|늘리|옮기|나누|합치|정하|맞추|남기|없애|돌리"
    r"|넘어가|미루)자"
    # "try" / "do and leave it": 테스트 해봐, 찾아봐, 기록해놔, 남겨둬
    r"|(?:해|어|아|여)\s?(?:봐|놔|둬)"
    # the informal imperative of action nouns: 진행해, 커밋해, 수정 해
    rf"|(?:{_ACTION_NOUNS})\s?해"
    # the informal imperative of common verbs: 바꿔, 고쳐, 만들어, 넣어, 올려, 지워
    r"|(?<![가-힣])(?:바꿔|고쳐|만들어|넣어|빼|지워|올려|내려|줄여|늘려|옮겨|붙여|나눠|합쳐|맞춰|돌려|막아|남겨|없애|살려"
    r"|멈춰|켜|꺼|써)"
    r")" + _END
)
"""An order by its ending."""

_WANT: Final = re.compile(
    r"(?:고\s?싶(?:어|다|은데|습니다|네|어서)|(?:으)?면\s?좋겠(?:어|다|는데|습니다|네)|했으면\s?(?:해|좋겠\w*)|할래"
    r"|필요(?:해|합니다|하다)|원해)"
    + _END
)
"""The user's own want or need ("…하고 싶어", "…면 좋겠어", "체크가 필요해", "…해줘야 될 것 같아"): an order said as
a wish, like "I want …" or "we need to …"."""

_MUST: Final = re.compile(r"(?:해|어|아|여|줘)야\s?(?:해|돼|된다|한다|합니다|됩니다|할\s?것|될\s?것|할거|될거|겠)")
"""An obligation ("…해야 해", "…넣어야 될 것 같아"): a rule as well as an order, like "must"."""

_RULE: Final = re.compile(
    # prohibitions: 하지 마, 쓰지 말고, 만들지 말아, 건드리지 마세요
    r"지\s?(?:마(?:세요|십시오|라)?|말(?:아|고|것|라|자|아줘|아\s?줘|아\s?주세요)?)(?![가-힣])"
    r"|(?:하|되|쓰|넣|만들|건드리|바꾸)면\s?안\s?(?:돼|됩니다|된다|되)"
    # "better not": 안하는게 좋을 것 같아, 안 쓰는 게 나아
    r"|안\s?(?:하|쓰|넣|만들|건드리|바꾸)(?:는|면)\s?(?:게|것이|편이)?\s?(?:좋|낫|나아)"
    # adverbs that hold beyond this turn, and 금지 (forbidden)
    r"|앞으로(?:는)?\s|항상|절대(?:로)?|반드시|무조건|언제나|매번|금지"
    # one convention for everything: 통일해줘, 일괄, "…할 때마다"
    r"|통일|일괄|때마다"
    # only this: "X만 사용해"
    r"|만\s?(?:사용|써|쓰|유지)"
)
"""A standing rule or prohibition."""

_DEFER: Final = re.compile(
    r"나중에|보류|(?<![가-힣]\s)(?<![가-힣])다음에|미루|(?:일단|이건|이거는?|그건)\s?(?:패스|넘어가|스킵)"
)
"""Put off: "나중에", "일단 보류", "이건 넘어가고"; not "만든 다음에" (after making)."""

_QUESTION: Final = re.compile(
    r"(?:(?:했|됐|있|없|되|였|었|았|겠)나요?|(?<!아)니|냐|(?<!아)까요?|[는은한인된할던]가요?|는지)" + _END
)
"""A question without its mark, by its ending ("frontend도 진행했나", "가능한가", "어떻게 할까")."""
_ASKS_TO_DO: Final = re.compile(
    r"(?:줄래|주실래|할래|해\s?줄\s?수\s?있(?:어|나|니|을까)|가능해)(?:요)?[\s?？.!~]*$"
)
"""A request put as a question ("…해줄래?", "vercel용으로 코드 업데이트 가능해?"): it asks for work, not for an
answer, as "can you …?" does. "…가능한가?" asks whether something can be done, and is a question."""

_EXAMINES: Final = re.compile(
    r"(?:(?:확인|체크|검토|분석|조사|조회|점검|리뷰|설명|파악|로딩|로드)\s?(?:해|하)|봐\s?줘|살펴|알려\s?(?:줘|주)"
    r"|보여\s?(?:줘|주)|읽어)\S*$"
)
"""A request to look, check, read or explain, by its last verb ("확인해줘", "봐줘", "알려줘", "그걸 로딩해봐"): its
answer sets direction, not the request, as with "check …", "read …" or "tell me …" in English. "확인해서 수정하고
푸시해" orders the fix and the push."""

KO_CORRECTION: Final = re.compile(
    r"^(?:아니(?:야|요|오|지|라고)?(?=[\s,.!?]|$)|그게\s?아니|그거\s?말고|잘못|틀렸|내\s?말은)"
)
"""A correction of the agent's last turn, by its opening ("아니, …", "그게 아니라 …", "잘못 …"); not "아니면" (or),
and not "다시 …" (again), which asks for a retry more often than it says the agent was wrong."""

KO_APPROVAL: Final = re.compile(
    r"^(?:응|ㅇㅇ|ㅇㅋ|네|예|넵|넹|웅|그래|좋아|좋네|좋습니다|오케이|오키|진행해|진행하자|계속(?:해|하자|진행해)?"
    r"|그렇게\s?해|그걸로|맞아|콜)"
    r"(?![가-힣])"
)
"""A yes to what the agent offered ("응", "네", "좋아", "ㅇㅇ", "진행해", "계속해" as "continue"); not "네가" (you) or
"그래서" (so)."""

KO_BARE_YES: Final = re.compile(
    r"^(?:응|ㅇㅇ|ㅇㅋ|네|예|넵|넹|웅|그래|좋아|오케이|오키|알겠어|알았어|계속(?:해|하자|진행해)?)[\s.!~^ㅎㅋ]*$"
)
"""A Korean yes or "go on" (계속) and nothing else: with nothing offered it acknowledges, as "ok" does."""

KO_REJECTION: Final = re.compile(r"^(?:아니(?:요|오)?|아뇨|ㄴㄴ|안\s?돼|하지\s?마|싫어|됐어|필요\s?없어)[\s.!~]*$")
"""A no to what the agent offered ("아니요", "하지 마", "됐어")."""

KO_ACK: Final = re.compile(
    r"^(?:(?:오케이|ㅇㅋ|좋아|좋네|고마워|감사(?:합니다|해요)?|수고\s?(?:했어|하셨습니다|많았어|많으셨습니다)|안녕(?:하세요)?"
    r"|잘\s?(?:됐|되네|돼|된다|됩니다|했어))[\s~!.,^ㅎㅋ요]*)+$"
)
"""Thanks, "good work" or "it works" and nothing else ("오케이 수고 많았어요~", "잘 되네")."""

_LEAD: Final = re.compile(
    r"^(?:(?:응|네|예|좋아|오케이|일단|일단은|그럼|그러면|그리고|이제|자|좀|바로|다시|계속|같이|한번|먼저|우선|지금|아|음|흠|오"
    r"|그냥|이렇게|그렇게|또|이어서|마저)(?![가-힣])[\s,.]*)+"
)
"""Words before an order that name nothing ("일단", "그럼", "이어서"): "이어서 진행해줘" is "go on"."""

_VERB_TAIL: Final = re.compile(
    r"(?:\s(?:해|해줘|줘|주세요|봐|놔|둬|해봐|해놔|해둬|하자|시켜줘|해라|하세요))+" + _END
)
"""A verb written apart from its noun ("업데이트 해줘", "테스트 해봐"): part of the verb, not what it acts on."""
_CONNECTIVE: Final = re.compile(r"(?:하고|해서|하면|하며|한\s?후|한\s?뒤|하기\s?전)$")
"""A verb joined to the next ("커밋하고 푸시해줘"): another action, not an object."""


@dataclass(frozen=True, slots=True)
class KoreanMarks:
    """What a Korean sentence's form says."""

    question: bool
    request: bool
    rule: bool
    deferral: bool


_CODE: Final = re.compile(r"^\s*(?:echo|printf|print|console\.\w+|logger\.\w+|logging\.\w+|raise|throw|return)\b"
                          r"|^\s*[\w.]+\s*=\s*[\"'(\[{]")
"""A line of a program the user pasted (`echo "오류: … 설치되어 있어야 합니다."`): the program speaks, not the user."""


def read_korean(core: str) -> KoreanMarks:
    """The acts a Korean sentence ``core`` marks by its ending or its adverbs."""
    if _CODE.match(core):
        return KoreanMarks(question=False, request=False, rule=False, deferral=False)
    asks_to_do = bool(_ASKS_TO_DO.search(core))
    return KoreanMarks(
        question=not asks_to_do and bool(core.rstrip().endswith(("?", "？")) or _QUESTION.search(core)),
        request=asks_to_do or bool(_REQUEST.search(core) or _WANT.search(core) or _MUST.search(core)),
        rule=bool(_RULE.search(core) or _MUST.search(core)),
        deferral=bool(_DEFER.search(core)),
    )


def korean_examines(sentence: str) -> bool:
    """Whether a Korean order asks to look, check or explain (its answer, not the order, sets direction)."""
    return bool(HANGUL.search(sentence)) and bool(_EXAMINES.search(sentence))


def korean_direction(sentence: str) -> bool:
    """A Korean order or rule that names what it acts on: a word before its verb other than a lead word or another
    verb ("순서대로 작업을 진행해줘", "마이그레이션 진행해줘", "todo를 갱신해줘"); a bare "커밋해줘" or "이어서
    진행해줘" names nothing (docs/capture.md, round 19)."""
    if not HANGUL.search(sentence):
        return False
    marks = read_korean(sentence)
    if not (marks.request or marks.rule) or marks.question:
        return False
    words = _VERB_TAIL.sub("", _LEAD.sub("", sentence.strip())).split()
    return len(words) >= 2 and any(not _CONNECTIVE.search(w) for w in words[:-1])
