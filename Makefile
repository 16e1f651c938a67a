# paddle-ir: everything a fresh clone needs, from nothing but python3.
#   make demo   build -> save -> run -> dump the sparse-embedding example
#   make test   lint + the test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-stamp
STAMP  := $(VENV)/.install-stamp
PB2    := paddle_ir/proto/framework_pb2.py

.PHONY: all demo test lint proto clean

all: test

$(DEPS): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check "setuptools>=64" wheel "grpcio-tools>=1.60"
	touch $@

# The bindings are generated from the schema, never written by hand.
proto: $(PB2)
$(PB2): proto/framework.proto $(DEPS)
	$(PY) -m grpc_tools.protoc -Iproto --python_out=paddle_ir/proto proto/framework.proto

$(STAMP): $(DEPS) $(PB2) pyproject.toml setup.py
	$(PY) -m pip install --quiet --disable-pip-version-check --no-build-isolation -e '.[test]'
	touch $@

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) lint
	$(PY) -m pytest

demo: $(STAMP)
	$(PY) examples/demo.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .hypothesis out
	rm -f $(PB2)
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
