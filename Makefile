# Scala 40 over the network: set-up, tests, lint, benchmarks and play, all from this file.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test lint bench proto clean play host soak

# The venv is (re)installed whenever the project's own dependency list changes.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

# The kill test at length: a host SIGKILLed at 300 points of its matches (make test runs 40).
soak: $(STAMP)
	SCALA40_KILL_POINTS=300 $(PY) -m pytest -q -s tests/test_host_kill.py --timeout 3600

lint: $(STAMP)
	cd protos && ../$(VENV)/bin/buf lint
	$(VENV)/bin/ruff check scala40_net host client tests bench protos
	$(VENV)/bin/mypy --strict scala40_net host client

bench: $(STAMP)
	@for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

# The stubs are committed (so the package installs without protoc); a test fails when they are stale.
proto: $(STAMP)
	$(PY) protos/generate_python.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis

# A game against 3 bots: a host inside the client process on 127.0.0.1 and a free port;
# leaving the game stops it. ARGS passes options on, e.g. make play ARGS="--lang en".
play: $(STAMP)
	$(VENV)/bin/scala40-play $(ARGS)

# A host for the LAN on every interface; it prints the address others join with.
HOST_PORT ?= 4040
host: $(STAMP)
	@$(PY) -c 'from client.main import print_join_hint; print_join_hint($(HOST_PORT))'
	$(VENV)/bin/scala40-host --listen 0.0.0.0:$(HOST_PORT) $(ARGS)
