"""Checkpoint YAML: PyYAML's safe dumper and loader only, with a private dumper subclass (seed 000 §5.1).

Style: keys are fixed schema identifiers, emitted plain (never user text); multi-line text is a literal
block scalar (``|``) when that round-trips exactly; every other string is double-quoted, the one YAML style
that can escape anything. Strings cannot hold lone surrogates in a UTF-8 file (and JSON transcripts reject
them), so before dumping every string goes through :func:`replace_lone_surrogates`: valid surrogate pairs
are joined, lone halves become U+FFFD. Apart from that rule, any string round-trips.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from engine.checkpoint import Checkpoint, CheckpointFormatError, map_text, validate_checkpoint

__all__ = ["dump_checkpoint", "load_checkpoint", "replace_lone_surrogates"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_KEY: Final = re.compile(r"[a-z][a-z_]*")
# Literal blocks only for text the block grammar reproduces exactly: "\n" as the sole line break (YAML
# normalises "\r" and "\x85", and U+2028/9 are breaks too), printable characters (no BOM), and no space or
# tab before a line end (PyYAML refuses or would strip it).
_BLOCK_UNSAFE: Final = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]|[ \t]\n|[ \t]$"
)


def replace_lone_surrogates(text: str) -> str:
    """Join valid surrogate pairs into their code point and replace lone surrogates with U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class _CheckpointDumper(yaml.SafeDumper):
    """SafeDumper with checkpoint styles; registered on this subclass only, never globally."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        # Indent sequences under their key, as the seed's example file does.
        super().increase_indent(flow, False)

    def represent_mapping(self, tag: str, mapping: Any, flow_style: bool | None = None) -> MappingNode:
        assert isinstance(mapping, Mapping)
        pairs: list[tuple[Node, Node]] = []
        for key, value in mapping.items():
            if not isinstance(key, str) or not _KEY.fullmatch(key):
                raise ValueError(f"checkpoint keys are schema identifiers, got {key!r}")
            pairs.append((ScalarNode("tag:yaml.org,2002:str", key), self.represent_data(value)))
        return MappingNode(tag, pairs, flow_style=False)


def _represent_str(dumper: _CheckpointDumper, text: str) -> ScalarNode:
    style = "|" if "\n" in text and not _BLOCK_UNSAFE.search(text) else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_CheckpointDumper.add_representer(str, _represent_str)


class _CheckpointLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases: checkpoints never use them, and they let a small file expand."""

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases are not allowed in a checkpoint", None)
        return super().compose_node(parent, index)


def dump_checkpoint(cp: Checkpoint) -> str:
    """The YAML document for ``cp`` (lone surrogates replaced, see the module docstring)."""
    clean = map_text(cp, replace_lone_surrogates, all_strings=True)
    return yaml.dump(
        clean.to_dict(),
        Dumper=_CheckpointDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
        indent=2,
    )


def load_checkpoint(text: str) -> Checkpoint:
    """Parse and validate a checkpoint document.

    Raises:
        CheckpointFormatError: the text is not YAML, or not a valid v1 checkpoint.
    """
    try:
        data = yaml.load(text, Loader=_CheckpointLoader)
    except yaml.YAMLError as exc:
        raise CheckpointFormatError([f"yaml: {' '.join(str(exc).split())[:300]}"]) from None
    except RecursionError:
        raise CheckpointFormatError(["yaml: nested too deeply"]) from None
    problems = validate_checkpoint(data)
    if problems:
        raise CheckpointFormatError(problems, data)
    return Checkpoint.from_dict(data)
