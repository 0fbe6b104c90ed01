"""The files an agent's shell command reads and writes (engine/capture/shell_files.py; docs/checkpoints.md, Tools
and files). Commands quoted verbatim from the real pi-mono session in tests/fixtures/openclaw."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.capture.shell_files import shell_files
from engine.capture.state import CapturedState, capture
from engine.stores.transcript import read_transcript

FIXTURE = (Path(__file__).resolve().parents[1] / "fixtures" / "openclaw"
           / "badlogic__pi-mono__large-session.v1-legacy.jsonl")


@pytest.mark.parametrize(("command", "written"), [
    # BSD sed's "-i ''": the empty word is the backup suffix, then the script, then the file.
    ("sed -i '' 's/main-new/main/g' /Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/cli.ts",
     ["/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/cli.ts"]),
    ("sed -i '' '/undefined,$/d' packages/tui/test/markdown.test.ts", ["packages/tui/test/markdown.test.ts"]),
    # A heredoc's body is the file's text: its lines are not commands.
    ("cat > /tmp/fix_markdown.py << 'EOF'\nimport re\n\nwith open('packages/tui/test/markdown.test.ts', 'r') as f:\n"
     "    content = f.read()\nEOF\npython3 /tmp/fix_markdown.py", ["/tmp/fix_markdown.py"]),
    ("ssh-keyscan github.com >> ~/.ssh/known_hosts", ["~/.ssh/known_hosts"]),
    # GNU forms, a script given with -e, perl in place, tee after a pipe.
    ("sed -i.bak -e 's/a/b/' src/app.py src/cli.py", ["src/app.py", "src/cli.py"]),
    ("perl -pi -e 's/foo/bar/' lib/x.pm", ["lib/x.pm"]),
    ("echo done | tee -a build.log", ["build.log"]),
])
def test_a_shell_command_that_writes_a_file_names_it(command: str, written: list[str]) -> None:
    assert shell_files(command)[1] == written


@pytest.mark.parametrize("command", [
    "ls packages > /dev/null 2>&1",   # a device and a descriptor are not files
    # moltbot-config (tests/fixtures/openclaw): its checkpoint listed /dev/null as a modified file.
    "ls -la /opt/moltbot/*.json /opt/moltbot/*.yaml /opt/moltbot/*.yml 2>/dev/null",
    "sed 's/a/b/' README.md",          # sed without -i writes to its output
    "cat <<'EOF'\nfeat: a message > notes.txt\nEOF",  # the ">" is inside the heredoc's text
    "rm -f *.ts > $OUT",               # a variable names no file
    "echo 'unterminated > x.txt",      # an open quote: nothing is guessed
])
def test_a_shell_command_that_writes_no_plain_file_names_none(command: str) -> None:
    assert shell_files(command)[1] == []


def test_a_command_that_only_reads_names_what_it_reads() -> None:
    assert shell_files("cd /w && cat package.json tsconfig.json") == (["package.json", "tsconfig.json"], [])
    assert shell_files("head -n 20 src/main.ts") == (["src/main.ts"], [])


def test_the_checkpoint_lists_files_the_agent_edited_through_its_shell() -> None:
    reader = read_transcript(FIXTURE)
    state = capture(CapturedState(), list(reader.entries), reader.read_object)
    assert "packages/tui/test/markdown.test.ts" in state.files_modified
    assert "/tmp/fix_markdown.py" in state.files_modified
    assert not [f for f in state.files_modified if f.startswith("/dev/")]


def test_a_line_too_long_to_be_a_plain_command_is_left_unread_and_the_files_are_capped() -> None:
    # Session data is hostile: a tool call can carry megabytes in one line, and splitting it into words goes
    # character by character. Such a line names no file here; a plain one after it still does.
    huge = "echo " + "x" * 5_000 + " > out.txt"
    assert shell_files(huge) == ([], [])
    assert shell_files(huge + "\nsed -i '' 's/a/b/' src/app.ts") == ([], ["src/app.ts"])
    many = "touch " + " ".join(f"f{n}.txt" for n in range(300)) + "\ntouch last.txt"
    assert shell_files(many)[1][-1] == "f299.txt"  # the first line's files, then no more lines once 100 are named
