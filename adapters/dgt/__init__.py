"""DGT electronic boards and clocks: protocol, move reconstruction, transports.

Sans-I/O core: ``protocol`` (bytes <-> messages), ``session`` (settling),
``reconstruct`` (placements -> moves and alerts), ``clocksides`` (left/right ->
White/Black). I/O shells: ``link`` (serial, TCP, recordings), ``livechess``,
``service.run_sources``. Into the store: ``feed``. Tools: ``recording`` (the
``.dgt`` format), ``simulator``. See ``docs/dgt.md``.
"""
