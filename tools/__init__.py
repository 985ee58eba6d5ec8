"""Tools that work on the project (generators of its docs and samples), not run by it:
outside the runtime package, never imported by ``engine``, ``projections`` or ``adapters``."""
