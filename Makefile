# Two commands on a fresh machine with Python 3.11 and make:
#   make demo   the main job, on the embedded SQLite default (PORT=9000: another web port)
#   make test   lint, types and the whole suite (6 pytest-xdist workers: most tests wait
#               on PostgreSQL, subprocesses, sockets and paced boards, so 6 keep 2 cores
#               busy where 4 left a third of them idle; TEST_WORKERS=N for another count)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint types pytest bench bench-each clean browser stockfish docs drill history

# The venv's own pip (Python 3.11 ships one that installs in editable mode): no upgrade,
# which cost a round trip to the index and a reinstall on every fresh clone.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/candidates demo $(if $(PORT),--port $(PORT))

# The event day (docs/operations.md) on this machine in a few minutes: a PostgreSQL cluster
# of its own, two gateways, four DGT boards on pseudo-terminals, clients; a board reader, a
# gateway and the database killed mid-round, a backup restored. Exit 1 unless 0 lost,
# 0 doubled, 0 out of order and every audit passed.
# PORT_BASE=N: the drill's ports (its cluster's, its gateways') are the first free ones
# from N up, in a range the machine allows.
drill: $(VENV)/.installed
	$(if $(PORT_BASE),CANDIDATES_DRILL_PORT_BASE=$(PORT_BASE)) $(BIN)/python deploy/drill.py

# The history checker (tests/history_checker.py, docs/architecture.md "One log, many
# processes"): HISTORIES random histories on each store (SQLite, and PostgreSQL on a cluster
# of its own) with writers, a board reader, resuming subscribers and kills, each checked
# against the log. Exit 1 on any anomaly. About 15 s a history on 2 cores.
HISTORIES ?= 200
history: $(VENV)/.installed
	$(BIN)/python -m tests.history_checker --histories $(HISTORIES) --backend both

# docs/commands.md and docs/schema/ from the engine's command declarations and the contract's
# types (the query objects' and the frames')
docs: $(VENV)/.installed
	$(BIN)/python -m tools.reference

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Strict (pyproject.toml) end to end: the rulebook, the projections, every adapter, the tools
# and the hall's drill.
types: $(VENV)/.installed
	$(BIN)/mypy engine projections adapters tools deploy

# Scopes are handed out in the suite's order (--no-loadscope-reorder), which puts the longest
# first (LONGEST_FIRST in tests/conftest.py): none is left to finish alone at the end.
# Bytecode is written even where the environment asks otherwise (PYTHONDONTWRITEBYTECODE):
# the suite starts the `candidates` command line in a few hundred subprocesses, and each would
# compile every module it imports again (about twice the start-up of a cached one).
# Temporary stores live in memory (/dev/shm where there is one): the tests prove what is
# written and what survives a killed process, not the disk's fsync, which made a test of
# 20,000 commits wait on the disk for most of its time.
TEST_WORKERS ?= 6
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})
pytest: export PYTHONDONTWRITEBYTECODE :=
pytest: export TMPDIR := $(TEST_TMPDIR)
pytest: $(VENV)/.installed
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder

test: lint types browser stockfish pytest

# Debian's chromium for the browser tests of the live page. A failed install fails here (and
# on CI, where CI=true, the browser tests fail rather than skip without it): a browser that
# could not be installed never passes as a skipped test.
CHROMIUM ?= /usr/bin/chromium
APT_GET ?= apt-get
browser:
	@test -x $(CHROMIUM) || { $(APT_GET) update -qq && DEBIAN_FRONTEND=noninteractive \
		$(APT_GET) install -y -qq chromium >/dev/null && test -x $(CHROMIUM); } \
		|| { echo "make browser: chromium could not be installed at $(CHROMIUM)" >&2; exit 1; }

# Debian's stockfish for the engine's analysis (docs/analysis.md) and its tests (skipped, with
# the reason, without it); `make demo` shows the analysis when it is there.
stockfish:
	@test -x /usr/games/stockfish || command -v stockfish >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish >/dev/null; } \
		|| echo "stockfish could not be installed"

# The suite (bench/load.py): several tournaments, boards, viewers and gateways, SQLite and
# PostgreSQL ($$CANDIDATES_BENCH_PG, else the local test server) side by side, each figure next
# to a bare baseline of the same run; writes bench/RESULTS.md. A few minutes. Then the
# engine's analysis on beside off (bench/bench_analysis.py, 4 and 100 boards: the single
# move and move->viewer with `candidates analyse` running and stopped in alternate phases),
# appended to bench/RESULTS.md.
bench: $(VENV)/.installed stockfish
	$(BIN)/python bench/load.py --results bench/RESULTS.md
	$(BIN)/python bench/bench_analysis.py --boards 4,100 --rounds 8 --results bench/RESULTS.md

# Every single-topic bench script in turn.
bench-each: $(VENV)/.installed
	for b in bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
