"""The thread pool behind the app's thread workers: each call runs in a context of its own, dropped when it returns.

Textual runs a thread worker through ``loop.run_in_executor``, which copies no context, and sets its
``active_worker`` variable in the pool thread's own context. There it stayed until that thread's next job: the
finished worker, its work and the screen the work belonged to stayed reachable from an idle thread (Python's
collector does not see a thread's context), so every session screen ever opened stayed in memory and each open
got slower. Running each call in a copy of the caller's context (as ``asyncio.to_thread`` does) leaves nothing
behind in the thread.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

__all__ = ["ContextPerCallExecutor"]

P = ParamSpec("P")
T = TypeVar("T")


class ContextPerCallExecutor(ThreadPoolExecutor):
    """A thread pool whose calls each run in a copy of the submitting context."""

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        context = contextvars.copy_context()

        def call() -> T:
            return context.run(fn, *args, **kwargs)

        return super().submit(call)
