"""Checkpoint YAML: PyYAML's safe dumper and loader only, with private dumper subclasses (docs/checkpoints.md, YAML).

libyaml is used when PyYAML has it, the pure-Python emitter and parser otherwise; files from either read
back with either. Style: keys are fixed schema identifiers, emitted plain (never user text); multi-line
text is a literal block scalar (``|``) when that round-trips exactly; every other string is double-quoted,
the one YAML style that can escape anything. Strings cannot hold lone surrogates in a UTF-8 file (and JSON
transcripts reject them), so before dumping every string goes through :func:`replace_lone_surrogates`:
valid surrogate pairs are joined, lone halves become U+FFFD. Apart from that rule, any string round-trips.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from engine.checkpoints.model import Checkpoint, CheckpointFormatError, map_text, validate_checkpoint

__all__ = ["YAML_IMPLEMENTATIONS", "dump_checkpoint", "load_checkpoint", "replace_lone_surrogates"]

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_KEY: Final = re.compile(r"[a-z][a-z_]*")
# Literal blocks only for text the block grammar reproduces exactly: "\n" as the sole line break (YAML
# normalises "\r" and "\x85", and U+2028/9 are breaks too), printable characters only (no tab, no BOM), and
# no space before a line end (the emitters refuse it). Anything else is double-quoted.
_BLOCK_UNSAFE: Final = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe]| \n| $"
)


def replace_lone_surrogates(text: str) -> str:
    """Join valid surrogate pairs into their code point and replace lone surrogates with U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class _CheckpointRepresenter:
    """Checkpoint styles for a SafeDumper; applied to private subclasses only, never registered globally."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_mapping(self, tag: str, mapping: Any, flow_style: bool | None = None) -> MappingNode:
        assert isinstance(mapping, Mapping)
        pairs: list[tuple[Node, Node]] = []
        for key, value in mapping.items():
            if not isinstance(key, str) or not _KEY.fullmatch(key):
                raise ValueError(f"checkpoint keys are schema identifiers, got {key!r}")
            node = self.represent_data(value)  # type: ignore[attr-defined]
            pairs.append((ScalarNode("tag:yaml.org,2002:str", key), node))
        return MappingNode(tag, pairs, flow_style=False)

    def represent_str(self, text: str) -> ScalarNode:
        style = "|" if "\n" in text and not _BLOCK_UNSAFE.search(text) else '"'
        return ScalarNode("tag:yaml.org,2002:str", text, style=style)


class _PyDumper(_CheckpointRepresenter, yaml.SafeDumper):
    """The pure-Python emitter."""


_PyDumper.add_representer(str, _CheckpointRepresenter.represent_str)
_DUMPERS: dict[str, type[yaml.SafeDumper] | type[yaml.CSafeDumper]] = {"python": _PyDumper}
_LOADERS: dict[str, type[yaml.SafeLoader] | type[yaml.CSafeLoader]] = {"python": yaml.SafeLoader}
if getattr(yaml, "__with_libyaml__", False):

    class _CDumper(_CheckpointRepresenter, yaml.CSafeDumper):
        """libyaml's emitter: same styles, several times faster."""

    _CDumper.add_representer(str, _CheckpointRepresenter.represent_str)
    _DUMPERS["libyaml"] = _CDumper
    _LOADERS["libyaml"] = yaml.CSafeLoader
YAML_IMPLEMENTATIONS: Final = tuple(sorted(_DUMPERS))
"""``python`` and, when PyYAML was built with it, ``libyaml`` (the default: several times faster)."""
# The text may differ between the two emitters (escapes of astral characters); the values never do.
_IMPLEMENTATION: Final = "libyaml" if "libyaml" in _DUMPERS else "python"


def _shared_container(data: object) -> bool:
    """Whether a container appears twice: the trace an alias leaves after loading."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            if id(item) in seen:
                return True
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


def dump_checkpoint(cp: Checkpoint, *, implementation: str = _IMPLEMENTATION) -> str:
    """The YAML document for ``cp`` (lone surrogates replaced, see the module docstring).

    ``implementation`` (``libyaml`` when PyYAML has it, else ``python``) exists for tests.
    """
    clean = map_text(cp, replace_lone_surrogates, all_strings=True)
    return yaml.dump(
        clean.to_dict(),
        Dumper=_DUMPERS[implementation],
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
        indent=2,
    )


def load_checkpoint(text: str, *, implementation: str = _IMPLEMENTATION) -> Checkpoint:
    """Parse and validate a checkpoint document (aliases are refused: checkpoints never contain them).

    Raises:
        CheckpointFormatError: the text is not YAML, or not a valid v1 checkpoint.
    """
    try:
        data = yaml.load(text, Loader=_LOADERS[implementation])
    except yaml.YAMLError as exc:
        raise CheckpointFormatError([f"yaml: {' '.join(str(exc).split())[:300]}"]) from None
    except RecursionError:
        raise CheckpointFormatError(["yaml: nested too deeply"]) from None
    if _shared_container(data):
        raise CheckpointFormatError(["yaml: aliases are not allowed in a checkpoint"])
    problems = validate_checkpoint(data)
    if problems:
        raise CheckpointFormatError(problems, data)
    return Checkpoint.from_dict(data)
