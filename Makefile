# Scala 40 over the network: set-up, tests, lint, benchmarks and play, all from this file.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test lint bench proto messages clean play host soak

# The venv is (re)installed whenever the project's own dependency list changes: for playing
# (make play, make host) only what the game needs; for the tests and tools (make test, lint
# …) the development extras too. pip shows its progress: the first install downloads.
# The build tools' own deprecation notices are for this file's authors, not for a player.
PLAY_STAMP := $(VENV)/.installed-play
$(PLAY_STAMP): pyproject.toml
	@echo "Installing Scala 40 into $(VENV) (the first time only; see README: The first run)..."
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@PYTHONWARNINGS=ignore $(PY) -m pip install --progress-bar on -e .
	@touch $(PLAY_STAMP)
	@echo "Installed."

$(STAMP): pyproject.toml
	@echo "Installing Scala 40 and its development tools into $(VENV) (the first time only)..."
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@PYTHONWARNINGS=ignore $(PY) -m pip install --progress-bar on -e '.[dev]'
	@touch $(STAMP) $(PLAY_STAMP)
	@echo "Installed."

# The packages' docstring examples are tests too (--doctest-modules): an example that no
# longer holds fails the run like any other test. The tests run on TEST_WORKERS processes
# (pytest-xdist), one per core of this project's 2-core machines: measured here, 2 workers
# finished in 575 s what one did in 1077 s, while 4 made every test 2.5 times slower (the
# host and bot subprocesses they start want the cores too) and finished later. Tests of one
# xdist_group run on one worker (tests/README.md: what a test does to run beside others).
TEST_WORKERS ?= 2
test: $(STAMP)
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=40 --doctest-modules tests scala40_net host client

# The kill test at length: a host SIGKILLed at 300 points of its matches (make test runs 24);
# and a table held up on purpose (a seat churning its streams, one asking for every decision,
# one never moving) over a match of 6 deals (make test plays 1); the LAN evening in tmux over
# a match of 6 deals (make test plays 2, in about a minute).
soak: $(STAMP)
	SCALA40_KILL_POINTS=300 $(PY) -m pytest -q -s tests/test_host_kill.py --timeout 3600
	SCALA40_SOAK_DEALS=6 $(PY) -m pytest -q -s tests/test_host_soak.py --timeout 3600
	SCALA40_EVENING_DEALS=6 $(PY) -m pytest -q -s tests/test_e2e_evening.py --timeout 3600

# buf breaking holds the contract to the one last released (protos/released/README.md): a
# field, number or type changed by accident fails here; a deliberate break renews it.
lint: $(STAMP)
	cd protos && ../$(VENV)/bin/buf lint
	cd protos && ../$(VENV)/bin/buf breaking --against released/contract.binpb
	$(VENV)/bin/ruff check scala40_net host client tests bench protos
	$(VENV)/bin/mypy --strict scala40_net host client

bench: $(STAMP)
	@for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

# The stubs are committed (so the package installs without protoc); a test fails when they are stale.
proto: $(STAMP)
	$(PY) protos/generate_python.py

# The engine's refusals and the client's sentences in other languages: the English extracted
# from the code (Babel), merged into each .po (translate the new entries there), compiled to
# the .mo beside it, which is committed (a test fails when it is stale or a message has no
# translation) so the game needs no Babel to run.
LOCALE := scala40_net/locale
messages: $(STAMP)
	$(VENV)/bin/pybabel -q extract --no-location --omit-header --sort-output \
		-k refuse:3 -k N_ -o $(LOCALE)/scala40.pot \
		scala40_net/deal.py scala40_net/melds.py scala40_net/refusals.py host/edge/refusal_words.py \
		scala40_net/seat/private.py
	$(VENV)/bin/pybabel -q update --ignore-obsolete --no-fuzzy-matching \
		-i $(LOCALE)/scala40.pot -d $(LOCALE) -D scala40
	$(VENV)/bin/pybabel -q compile -d $(LOCALE) -D scala40
	$(VENV)/bin/pybabel -q extract --no-location --omit-header --sort-output -k M:1c,2 \
		-o client/locale/scala40_client.pot client/messages.py
	$(VENV)/bin/pybabel -q update --ignore-obsolete --no-fuzzy-matching \
		-i client/locale/scala40_client.pot -d client/locale -D scala40_client
	$(VENV)/bin/pybabel -q compile -d client/locale -D scala40_client

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis

# A game against 3 bots: a host inside the client process on 127.0.0.1 and a free port;
# leaving the game stops it. ARGS passes options on, e.g. make play ARGS="--lang en".
play: $(PLAY_STAMP)
	$(VENV)/bin/scala40-play $(ARGS)

# A host for the LAN on every interface, with TLS; it prints the invite others join with
# (scala40 'scala40://ADDRESS:PORT/?fp=…'), which pins its fingerprint.
HOST_PORT ?= 4040
host: $(PLAY_STAMP)
	$(VENV)/bin/scala40-host --listen 0.0.0.0:$(HOST_PORT) $(ARGS)
