"""Parsing the config file's YAML without aliases: ``*name`` references can expand a few hundred bytes into
gigabytes (the "billion laughs"), and a config file has no use for them (``docs/hostile-input.md``)."""

from __future__ import annotations

from typing import Any

__all__ = ["AliasRefusedError", "load_without_aliases"]


class AliasRefusedError(ValueError):
    """The YAML text uses an alias (``*name`` or a ``<<: *name`` merge)."""


def load_without_aliases(text: str) -> Any:
    """``yaml.safe_load(text)``, refusing any alias before it is expanded.

    Raises:
        AliasRefusedError: the text uses an alias (the message gives its line).
        yaml.YAMLError: the text is not YAML.
    """
    import yaml

    class _NoAliasLoader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise AliasRefusedError(
                    f"line {event.start_mark.line + 1}: YAML aliases (*{event.anchor}) are not accepted in the "
                    "config; write the value out"
                )
            return super().compose_node(parent, index)

    loader = _NoAliasLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
