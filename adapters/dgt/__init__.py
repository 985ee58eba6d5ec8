"""DGT electronic boards and clocks: protocol, move reconstruction, transports.

Sans-I/O core: ``protocol`` (bytes <-> messages), ``session`` (settling),
``reconstruct`` (placements -> moves and alerts: the rules in order, with the
game line ``game_line``, ``placements``, the ``lines`` of legal moves, the
``result_signals``, the ``recovery`` of a misread move and the ``board_alerts``),
``clocksides`` (left/right -> White/Black). I/O shells: ``link`` (serial, TCP,
recordings), ``livechess``, ``service.run_sources``. Into the store: ``feed``.
Tools: ``recording`` (the ``.dgt`` format), ``simulator``. See ``docs/dgt.md``.
"""
