"""The audit's rulebook: a stored log judged again, event by event, by the engine's rules.

Pure functions from events to findings (``findings.Finding``): whether each event
is well formed (``event_fields``), each game legal under its own rules profile
(``games``), each clock possible under its time control (``clocks``). Reading
the store or a log, the hash chains and the seals, and the report are the
adapter's (``adapters/audit/checks.py``).
"""
