"""Read models folded from events: boards, clocks, standings, PGN. Pure."""
