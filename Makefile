# Pivotal: `make run` opens the editor on the demo scene, `make test` runs every test,
# `make bench` prints the benchmark table. Each sets up what it needs first: a virtual
# environment in .venv with the project installed, and the missing Debian packages (Qt's and
# Mesa's libraries, Xvfb, assimp for FBX files: tools/install-system-deps.sh).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.pivotal-installed
XVFB_RUN := xvfb-run -a -s "-screen 0 1600x1000x24"
export QT_QPA_PLATFORM ?= xcb

.PHONY: install run test bench fuzz lint format system-deps clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,dev]'
	@# bvhio is only a point of comparison for `make bench`; its absence must not stop us.
	-$(PY) -m pip install -q --disable-pip-version-check -e '.[bench]' \
	  || echo "bvhio did not install; make bench will say so in its table"
	@touch $(STAMP)

install: $(STAMP)
	@tools/install-system-deps.sh run

run: $(STAMP)
	@tools/install-system-deps.sh run
	@if [ -n "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  $(PY) main.py; \
	else \
	  echo "No display found: rendering the demo scene under a virtual X server instead."; \
	  $(XVFB_RUN) $(PY) main.py screenshot --out build/demo.png; \
	fi

test: $(STAMP)
	@tools/install-system-deps.sh test
	@tools/install-gltf-validator.sh
	$(PY) -m pytest -n auto $(PYTEST_ARGS)

# 20,000 mutated scene files and BVH clips through load, save and load back, and bake (prints
# the tally), then the GUI monkey with 1,000 actions on each scene.
fuzz: $(STAMP)
	@tools/install-system-deps.sh test
	$(PY) tools/fuzz.py --examples 20000
	PIVOTAL_MONKEY_ACTIONS=1000 $(PY) -m pytest -q tests/widgets/test_monkey_gl.py

bench: $(STAMP)
	@tools/install-system-deps.sh test
	$(XVFB_RUN) $(PY) -m benchmarks.run $(BENCH_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check app tests benchmarks tools main.py
	$(PY) -m ruff format --check app tests benchmarks tools main.py

format: $(STAMP)
	$(PY) -m ruff format app tests benchmarks tools main.py

clean:
	rm -rf build .pytest_cache
