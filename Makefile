# kdiag — make demo | make test
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench clean

install: $(STAMP)

# idempotent: re-runs only when the project's dependencies change
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first and pinned, so pip takes the CPU build on disk and never a multi-GB CUDA build
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: install
	$(BIN)/kdiag classify examples/logs -v
	@echo
	@# a real run: a Triton kernel without a tail mask, under the interpreter with bounds checks (exit 1: diagnosed)
	$(BIN)/kdiag run corpus/kernels/missing_mask_tail.py; test $$? -eq 1

# the suite on every logical CPU (pytest-xdist; -n auto would count physical cores where psutil is installed);
# runs that several tests read are shared by the workers (tests/conftest.py)
test: install
	$(BIN)/ruff check diagnose tui harness tests bench scripts
	$(BIN)/ruff format --check diagnose tui harness tests bench scripts
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n logical --dist loadgroup diagnose tests

lint: install
	$(BIN)/ruff check diagnose tui harness tests bench scripts
	$(BIN)/ruff format --check diagnose tui harness tests bench scripts

bench: install
	$(BIN)/python bench/bench_classify.py
	$(BIN)/python bench/bench_run.py
	$(BIN)/python bench/bench_env.py
	$(BIN)/python bench/bench_collectors.py

clean:
	rm -rf $(VENV) .kdiag
