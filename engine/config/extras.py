"""The optional parts of the install: which extra a feature needs, and the message when it is missing.

``pip install ctxscope`` gives every reading and writing command; the LLM client (``httpx``) and the Prometheus
exporter (``prometheus_client``) come with the ``llm`` and ``metrics`` extras, and ``.[dev]`` pulls both
(README.md, docs/architecture.md). The check looks for the package without importing it, so asking costs nothing
and loads nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Literal

__all__ = ["EXTRAS", "Extra", "MissingExtraError", "extra_installed", "missing_extra", "require_extra"]

Extra = Literal["llm", "metrics"]

EXTRAS: dict[Extra, tuple[str, str]] = {
    "llm": ("httpx", "the LLM client (compact --llm, checkpoint --enrich, the C key)"),
    "metrics": ("prometheus_client", "the Prometheus exporter (watch --metrics)"),
}
"""Extra → (the module it installs, what needs it)."""


class MissingExtraError(RuntimeError):
    """A feature needs an extra that is not installed; the message says what to install."""


def extra_installed(extra: Extra) -> bool:
    """Whether the module ``extra`` installs can be imported (a module set to ``None`` in ``sys.modules`` is not)."""
    module = EXTRAS[extra][0]
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing_extra(extra: Extra) -> str | None:
    """The message for a missing ``extra`` (completes "ctxscope: …"), or ``None`` when it is installed."""
    if extra_installed(extra):
        return None
    module, needed_by = EXTRAS[extra]
    return (f"{needed_by} needs the '{extra}' extra, which is not installed ({module} is missing): "
            f"pip install 'ctxscope[{extra}]'")


def require_extra(extra: Extra) -> None:
    """Raise :class:`MissingExtraError` when ``extra`` is not installed.

    Raises:
        MissingExtraError: its module cannot be found; the message names the pip command.
    """
    problem = missing_extra(extra)
    if problem is not None:
        raise MissingExtraError(problem)
