"""Secret redaction (docs/checkpoints.md): known key shapes, credentials in headers and assignments, no false alarms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.capture.redact import REDACTED_RE, redact_obj, redact_secrets

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi5Z8Zo0hZxK1Xl9xXl7kY5QJ0a\n"
    "q1dcS0m7kK2s8Vq1E4t7Y0o6m5Q2w8Z3x4c5v6b7n8m9+/==\n"
    "-----END RSA PRIVATE KEY-----"
)

# (kind, text with a planted secret, the secret itself)
PLANTED = [
    (
        "openai-key",
        "export OPENAI_KEY=sk-proj-Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0 now",
        "Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0",
    ),
    ("openai-key", "legacy key sk-4f9Kq2Lm8Np3Rs7Tv1Wx5Yz0Ab6Cd2Ef9Gh4Ij8Kl in the log", "4f9Kq2Lm8Np3Rs7Tv1Wx5Yz0Ab6"),
    ("anthropic-key", "key: sk-ant-api03-Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc-AA", "Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc"),
    ("aws-access-key", "aws configure set aws_access_key_id AKIAZ7Q3R5T8V2W4X6Y9", "AKIAZ7Q3R5T8V2W4X6Y9"),
    ("aws-access-key", "temporary ASIAZ7Q3R5T8V2W4X6Y9 creds", "ASIAZ7Q3R5T8V2W4X6Y9"),
    (
        "github-token",
        "git clone https://ghp_R8s2T4u6V8w0X2y4Z6a8B0c2D4e6F8g0H2i4@github.com/x/y",
        "R8s2T4u6V8w0X2y4Z6a8B0c2",
    ),
    ("github-token", "gho_R8s2T4u6V8w0X2y4Z6a8B0c2D4e6F8g0H2i4", "R8s2T4u6V8w0X2y4Z6a8B0c2"),
    ("github-token", "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD", "11ABCDEFG0123456789_abcdef"),
    ("slack-token", "SLACK_BOT=xoxb-2048-4096-Ab12Cd34Ef56Gh78", "2048-4096-Ab12Cd34Ef56Gh78"),
    ("slack-token", "user token xoxp-1111-2222-3333-abcdef123456", "1111-2222-3333-abcdef123456"),
    ("google-api-key", "maps?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&x=1", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("gitlab-token", "glpat-Kq2Wm4Xr6Ty8Uz0Ab1Cd was rotated", "Kq2Wm4Xr6Ty8Uz0Ab1Cd"),
    ("jwt", f"cookie session={JWT}; Path=/", "dozjgNryP4J3jVmNHl0w5N"),
    ("private-key", f"id_rsa:\n{PEM}\nend", "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi5Z8Zo0hZxK1Xl9xXl7kY5QJ0a"),
    (
        "private-key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE",
    ),
    ("ssh-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKKU1zEz4tvHsUhj98dHix admin@clawd", "NzaC1lZDI1NTE5AAAAIKKU"),
    ("ssh-key", "authorized_keys: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7q9Z== me@box", "B3NzaC1yc2EAAAADAQAB"),
    (
        "bearer-token",
        "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://x",
        "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    ),
    ("bearer-token", "the header was bearer abcDEF1234567890ghiJKL", "abcDEF1234567890ghiJKL"),
    ("authorization", '{"headers": {"Authorization": "Basic dXNlcjpodW50ZXIy"}}', "dXNlcjpodW50ZXIy"),
    ("authorization", "Proxy-Authorization: token 5a4b3c2d1e0f9a8b", "5a4b3c2d1e0f9a8b"),
    ("password", "DB_PASSWORD=hunter2 ./run", "hunter2"),
    ("password", "login with password: s3cr3t!", "s3cr3t!"),
    ("password", '{"password": "correct horse battery staple"}', "correct horse battery staple"),
    ("password", "mysql --password=Tr0ub4dor&3 -u root", "Tr0ub4dor"),
    ("api-key", "api_key: 1f2e3d4c5b6a79880716253443526170", "1f2e3d4c5b6a79880716253443526170"),
    ("api-key", "X-API-KEY='q9w8e7r6t5y4u3i2'", "q9w8e7r6t5y4u3i2"),
    ("secret", "client_secret = 'abc123XYZ789'", "abc123XYZ789"),
    ("token", "https://api.test/v1?access_token=ya29.a0AfH6SMBx7&x=1", "ya29.a0AfH6SMBx7"),
    ("token", "mytool --token abc123def456", "abc123def456"),
    ("url-password", "DATABASE_URL=postgres://app:Sup3rS3cret@db:5432/app", "Sup3rS3cret"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), PLANTED, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(PLANTED)])
def test_planted_secret_is_replaced_with_its_kind(kind: str, text: str, secret: str) -> None:
    out = redact_secrets(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


def test_surrounding_text_is_kept() -> None:
    assert redact_secrets("DB_PASSWORD=hunter2 ./run") == "DB_PASSWORD=[REDACTED:password] ./run"
    assert (
        redact_secrets("curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://x")
        == "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' https://x"
    )
    assert redact_secrets(f"id_rsa:\n{PEM}\nend") == "id_rsa:\n[REDACTED:private-key]\nend"
    assert (
        redact_secrets('{"password": "a b c", "user": "bob"}') == '{"password": "[REDACTED:password]", "user": "bob"}'
    )


@pytest.mark.parametrize(
    "text",
    [
        "Use the task-management-system-for-users module and ask-questions-before-acting-always",
        "risk-assessment-framework-2024-final-version is the doc",
        "commit 3f62958a1b2c3d4e5f60718293a4b5c6d7e8f901 fixed it",
        "entry ids a1b2c3d4, deadbeef and 0af9f313",
        "session 76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl",
        "max_tokens: 4096 and input_tokens=162431 and max_token: 512",
        "The token: it is the smallest unit a model reads",
        "the bearer of bad news; a bearer bond",
        "secret: true",
        "Authorization header is required",
        "skeleton, skill, sky-high, desk-lamp-with-long-name",
        "AKIA is a prefix; AKIASHORT too",
        "eyJ alone, or eyJabc.def",
        "https://example.com/path?page=2&sort=asc",
        "password reset flow: send the email first",
        "Keyboard shortcuts and keys: ctrl+c",
        "tokenizer.encode(text)",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_secrets(text) == text


def test_redaction_is_idempotent_on_the_planted_set() -> None:
    for _, text, _ in PLANTED:
        once = redact_secrets(text)
        assert redact_secrets(once) == once


@settings(max_examples=300, deadline=None)
@given(st.text(), st.sampled_from(PLANTED), st.text())
def test_planted_secret_in_any_text_is_removed(before: str, planted: tuple[str, str, str], after: str) -> None:
    _, text, secret = planted
    assume(secret not in before and secret not in after)
    assert secret not in redact_secrets(f"{before} {text} {after}")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_redaction_of_any_text_is_idempotent(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert REDACTED_RE.search(once) or once == text


class _Pair(NamedTuple):
    name: str
    value: str


@dataclass(frozen=True, slots=True)
class _Box:
    label: str
    items: tuple[str, ...]
    count: int


def test_redact_obj_walks_containers_and_keeps_keys() -> None:
    secret = "sk-proj-Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0"
    obj = {
        "password=hunter2": [f"key {secret}", 3, None, ("x", secret)],
        "pair": _Pair("n", secret),
        "box": _Box(secret, (secret, "plain"), 7),
        "n": 1.5,
    }
    out = redact_obj(obj)
    assert list(out) == list(obj)
    assert out["password=hunter2"] == ["key [REDACTED:openai-key]", 3, None, ("x", "[REDACTED:openai-key]")]
    assert out["pair"] == _Pair("n", "[REDACTED:openai-key]")
    assert out["box"] == _Box("[REDACTED:openai-key]", ("[REDACTED:openai-key]", "plain"), 7)
    assert out["n"] == 1.5
    assert obj["box"].label == secret
