"""Korean conversation acts (docs/capture.md, round 19).

The sentences are the ko group's (nuri428/patent_board_full d87-d88, sysilion/moviehub d89-d90) unless a comment says
they are made from the grammar; none comes from the held-out lang group.
"""

from __future__ import annotations

import pytest

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _constraints, _decisions, _fold, _open

_OFFER = "위 내용으로 커밋을 진행할까요? 아니면 추가로 수정하거나 포함할 사항이 있으신가요?"  # d89's agent


@pytest.mark.parametrize("said", [
    "순서대로 작업을 진행해줘",
    "수정 내역을  기록해놔",
    "서버내부에서 헤드리스 브라우저도 테스트 해봐",
    "남은 토큰양이 얼마 안되네 프로젝트 전체 스펙에 관련된 내용을 기록해서 "
    "차후 작업도 바로 연동 가능하게 기록하고 마무리 하자",
    "cgv, megabox, cineq 사이트에 대한 이벤트 추적기를 추가해줘",
    "지금 프론트엔드에 페이지 기능들이 정상적인지 체크가 필요해",
    "디비 구조가 안맞아서 에러나는거같은데 마이그레이션 진행해줘",
    "vercel용으로 코드 업데이트 가능해?",  # a request put as a question, as "can you …?"
])
def test_a_korean_order_is_read_by_its_ending(said: str) -> None:
    turn = read_user_turn(said, False)
    assert turn.has("instructs") and not turn.has("asks"), said


def test_a_korean_question_is_read_by_its_mark_or_ending_and_a_statement_is_no_order() -> None:
    gui = "이 서버는 GUI가 없는 서버인데 web 페이지 접속으로 테스트가 가능한가"  # d88 wrote it with a "?"
    assert read_user_turn(gui, False).acts == {"asks"}
    assert not read_user_turn(gui + "?", False).has("instructs")
    # "안녕하세요" ends like a polite order but greets (grammar).
    assert not read_user_turn("안녕하세요", False).has("instructs")


def test_a_korean_order_that_names_what_it_acts_on_sets_direction_a_bare_one_does_not() -> None:
    assert _decisions(_fold(("user", "순서대로 작업을 진행해줘"))) == ["순서대로 작업을 진행해줘"]
    assert _decisions(_fold(("user", "디비 구조가 안맞아서 에러나는거같은데 마이그레이션 진행해줘")))
    assert _decisions(_fold(("user", "지금 디렉토리에 있는 코드와 미완료 혹은 개선 필요 항목을 비교해서 "
                                     "todo를 갱신해줘")))
    # "go on" and a bare "commit" name nothing (grammar; d89 and d90 say "이어서 진행해줘" / "커밋하고 푸시해줘").
    assert _decisions(_fold(("user", "이어서 진행해줘"))) == []
    assert _decisions(_fold(("user", "커밋해줘"))) == []
    # Asking to look something up or load a document sets no direction until its findings are acted on.
    assert _decisions(_fold(("user", "tasks.md, project.md 같은 md 파일을 읽어서 프로젝트 스펙을 조회해봐"))) == []
    assert _decisions(_fold(("user", "기능정의서 문서가 있을거야 그걸 로딩해봐"))) == []


@pytest.mark.parametrize(("said", "rule"), [
    ("앞으로 답은 최대한 한글로 해줘", "앞으로 답은 최대한 한글로 해줘"),
    ("현재 프로젝트에서 mysql, opensearch, neo4j는 이미 존재하는 외부 서비스에 접속해서 진행하는거야 직접적으로 도커를 "
     "만들하지 말아", "도커를 만들하지 말아"),
    ("비동기 성능개선은 사이트에서 접근을 차단 할 수 있어서 안하는게 좋을것 같아. 1,2,4 진행해줘",
     "안하는게 좋을것 같아"),
    ("개발 도커는 4만번대, 운영 도커는 5만번대로 통일해줘", "5만번대로 통일해줘"),
    ("전체 굿즈 이벤트 조회할때 지연시간을 추가해줘야될거같은데, 아니면 병렬로 처리하면서 "
     "기존 로직처럼 ~600초 대기를 넣어야 될거같아", "지연시간을 추가해줘야"),
])
def test_a_korean_standing_rule_or_prohibition_is_a_constraint(said: str, rule: str) -> None:
    assert any(rule in c for c in _constraints(_fold(("user", said)))), said


def test_a_korean_rule_is_told_from_a_one_off_order_and_from_a_pasted_program_line() -> None:
    said = ("앞으로 답은 최대한 한글로 해줘\n\n"
            "echo \"오류: 이 스크립트를 실행하려면 'jq', 'curl', 'openssl'이 모두 설치되어 있어야 합니다.\" >&2")
    assert _constraints(_fold(("user", said))) == ["앞으로 답은 최대한 한글로 해줘"]
    assert _constraints(_fold(("user", "에러 발생중이야 확인해서 수정하고 에러 발생하지 않게 만든다음에 푸시해"))) == []
    assert _constraints(_fold(("user", "cgv, megabox, cineq 사이트에 대한 이벤트 추적기를 추가해줘"))) == []


def test_a_korean_yes_or_no_answers_the_agents_offer() -> None:
    assert read_user_turn("응", True).acts == {"approves"}
    assert read_user_turn("아니요", True).acts == {"rejects"}  # grammar
    assert read_user_turn("응", False).acts == {"acknowledges"}
    # "네가" is "you", not "yes" (grammar).
    assert not read_user_turn("네가 만든 파일에 오류가 있어", True).has("approves")
    approved = _fold(("assistant", _OFFER), ("user", "응"))
    assert [i.source for i in approved if i.kind == "decision"] == ["confirmed"]


def test_korean_thanks_closes_the_request_and_is_not_one_itself() -> None:
    items = _fold(("user", "순서대로 작업을 진행해줘"), ("assistant", "모든 작업이 완료되었습니다."),
                  ("user", "오케이 수고 많았어요~"))
    assert read_user_turn("오케이 수고 많았어요~", False).acts == {"acknowledges"}
    assert _open(items) == []


def test_a_korean_correction_is_read_by_its_opening_but_aniimyeon_is_or() -> None:
    # Made from the grammar: "아니, 그게 아니라 …" (no, not that …) corrects; "아니면 …" (or else …) does not.
    assert read_user_turn("아니, 그게 아니라 테스트 파일만 고쳐줘", False).has("corrects")
    assert not read_user_turn("아니면 병렬로 처리하면서 기존 로직처럼 대기를 넣어줘", False).has("corrects")


def test_a_korean_deferral_puts_the_work_off() -> None:
    # Made from the grammar: "나중에" (later), "일단 보류" (on hold for now); "만든 다음에" is "after making".
    assert read_user_turn("일단 배포는 나중에 하자", False).has("defers")
    assert read_user_turn("이 기능은 일단 보류해줘", False).has("defers")
    assert not read_user_turn("에러 발생하지 않게 만든다음에 푸시해", False).has("defers")
