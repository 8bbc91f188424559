"""Replay (REPLAY.md): a session run call by call through a (trigger, strategy) pair, giving
the request of every model call, its figures and the session's; the corpus sweep under a
trigger."""
