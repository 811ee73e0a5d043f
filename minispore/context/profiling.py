"""Where a profiler plugs in. `minispore.profiler.Profiler` installs itself here while it
records; compiled programs then run instrumented steps (`Program.run` asks `active`). With
no profiler, the only cost is that one check per program run; eager ops are timed by an
interpreter the profiler swaps in, so PyNative pays nothing at all when it is off."""

active = None  # the recording Profiler, or None


def install(profiler):
    """Make `profiler` the one that compiled programs report to (None: none does)."""
    global active
    active = profiler
