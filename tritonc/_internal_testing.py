"""Test support that Triton's test suites import from `triton._internal_testing`.

`_fresh_knobs_impl(skipped_attr=None)` gives the pair behind the `fresh_knobs`
fixtures: `fresh()` puts a copy of every knob group of `tritonc.knobs` (but those named
in `skipped_attr`) back at its defaults, with the groups' environment variables unset
and `propagate_env` off, and returns the knobs module; `reset()` puts the original
groups, environment and `propagate_env` back.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable


def _fresh_knobs_impl(skipped_attr: set[str] | None = None
                      ) -> tuple[Callable[[], types.ModuleType], Callable[[], None]]:
    """(fresh, reset) for the `fresh_knobs` fixtures (see the module docstring)."""
    from tritonc import knobs

    skipped = skipped_attr or set()
    groups = {name: group for name, group in vars(knobs).items()
              if isinstance(group, knobs.KnobSet) and name not in skipped}
    saved_env: dict[str, str | None] = {}
    saved_propagate = knobs.propagate_env

    def fresh() -> types.ModuleType:
        for name, group in groups.items():
            for knob in group.knob_descriptors.values():
                if knob.key and knob.key not in saved_env:
                    saved_env[knob.key] = os.environ.pop(knob.key, None)
            setattr(knobs, name, group.copy().reset())
        knobs.propagate_env = False
        return knobs

    def reset() -> None:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        saved_env.clear()
        for name, group in groups.items():
            setattr(knobs, name, group)
        knobs.propagate_env = saved_propagate

    return fresh, reset
