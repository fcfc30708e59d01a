"""The PostgreSQL store's schema and its migrations, safe when several processes open
one database at once."""

from __future__ import annotations

import psycopg

from ....domain.analysis.retrieval_prefix import PREFIX_MARKERS
from ....domain.errors import ErrorKind, SheafError
from ....domain.search.bm25 import K1, B
from ....domain.search.feature_hashing import FINGERPRINT_DIMENSION
from .connection_errors import extension_error
from .text_ranking import REFERENCE_LENGTH
from .vector_tables import HNSW_EF_CONSTRUCTION, HNSW_M

SCHEMA_VERSION = 4
def _impact(k1: float, b: float, tf: str, length: str) -> str:
    """A posting's `impact` in SQL: its BM25 factor at k1 and b for a snippet of
    `REFERENCE_LENGTH` terms."""
    return (f"({tf}::float8 / ({tf} + {k1} * ({1 - b} + {b} * {length} / "
            f"{REFERENCE_LENGTH}.0)))::real")


def _postings_of(verb: str, k1: float, b: float) -> str:
    """The function making a snippet's postings, each with its `impact` at BM25's k1 and b
    as a migration wrote them (the constants of later versions do not move earlier ones)."""
    return f"""{verb} FUNCTION sheaf_postings_of(rows_space TEXT, rows_id TEXT,
                rows_terms tsvector, rows_count INTEGER)
            RETURNS TABLE (space TEXT, term TEXT, chunk_id TEXT, tf INTEGER, length INTEGER,
                           impact REAL)
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT rows_space, t.lexeme, rows_id, cardinality(t.positions), rows_count,
                       {_impact(k1, b, "cardinality(t.positions)", "rows_count")}
                FROM unnest(rows_terms) t
            $$"""


MIGRATION_LOCK = 0x5EAF_0001
"""The advisory lock every migrating process takes: the second one waits, then finds
the schema current and does nothing."""

# Each entry upgrades a database from the version before it; index 0 creates version 1.
# Snippets' words are kept as a tsvector with their count (`term_count`) by a trigger,
# not a generated column: the count is computed from the tsvector, and a generated
# column cannot be read by another.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE sheaf_schema (version INTEGER NOT NULL)",
        """CREATE TABLE spaces (
            name TEXT PRIMARY KEY, ingestion_enabled BOOLEAN NOT NULL,
            max_bytes BIGINT NOT NULL, allowed_kinds TEXT NOT NULL, enrich TEXT NOT NULL)""",
        """CREATE TABLE documents (
            id TEXT PRIMARY KEY, space TEXT NOT NULL, current_version TEXT NOT NULL,
            caller_source_id TEXT, created_at TIMESTAMPTZ NOT NULL,
            updated_at TIMESTAMPTZ NOT NULL)""",
        "CREATE INDEX documents_space ON documents (space, updated_at DESC, id)",
        "CREATE INDEX documents_caller ON documents (space, caller_source_id)",
        """CREATE TABLE versions (
            id TEXT PRIMARY KEY, document_id TEXT NOT NULL, space TEXT NOT NULL,
            number INTEGER NOT NULL, fetched_sha TEXT NOT NULL, content_sha TEXT NOT NULL,
            markdown_sha TEXT NOT NULL, content_source TEXT NOT NULL,
            content_type TEXT NOT NULL, title TEXT, created_at TIMESTAMPTZ NOT NULL,
            superseded_at TIMESTAMPTZ, metadata TEXT NOT NULL, caller_metadata JSONB NOT NULL,
            caller_version_id TEXT, diagnostics TEXT NOT NULL, characters BIGINT NOT NULL,
            blocks TEXT NOT NULL, near_duplicate_of TEXT,
            near_duplicate_similarity DOUBLE PRECISION, enrichment TEXT,
            UNIQUE (document_id, number))""",
        "CREATE INDEX versions_fetched ON versions (fetched_sha)",
        "CREATE INDEX versions_content ON versions (content_sha)",
        "CREATE INDEX versions_markdown ON versions (markdown_sha)",
        """CREATE TABLE sources (
            space TEXT NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL,
            document_id TEXT NOT NULL, fetched_sha TEXT NOT NULL, original TEXT NOT NULL,
            final_url TEXT, seen_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (space, key))""",
        "CREATE INDEX sources_document ON sources (document_id)",
        "CREATE INDEX sources_original ON sources (space, original)",
        "CREATE INDEX sources_final ON sources (space, final_url)",
        """CREATE TABLE chunks (
            id TEXT PRIMARY KEY, version_id TEXT NOT NULL, document_id TEXT NOT NULL,
            space TEXT NOT NULL, level TEXT NOT NULL, idx INTEGER NOT NULL,
            start_offset INTEGER NOT NULL, end_offset INTEGER NOT NULL,
            tokens INTEGER NOT NULL, heading_path TEXT[] NOT NULL, section_label TEXT,
            page_first INTEGER, page_last INTEGER, parent_id TEXT, prev_id TEXT,
            next_id TEXT, text TEXT NOT NULL, retrieval_text TEXT NOT NULL, context TEXT,
            terms TSVECTOR, term_count INTEGER)""",
        "CREATE INDEX chunks_version ON chunks (version_id)",
        "CREATE INDEX chunks_document ON chunks (document_id)",
        # The space's snippet count and mean length come from this index alone.
        """CREATE INDEX chunks_snippet_lengths ON chunks (space) INCLUDE (term_count)
            WHERE level = 'snippet'""",
        "CREATE INDEX chunks_terms ON chunks USING gin (terms)",
        """CREATE FUNCTION sheaf_chunk_terms() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.level = 'snippet' THEN
                    NEW.terms := to_tsvector('english', NEW.retrieval_text);
                    NEW.term_count := (SELECT coalesce(sum(cardinality(positions)), 0)
                                       FROM unnest(NEW.terms));
                ELSE
                    NEW.terms := NULL;
                    NEW.term_count := NULL;
                END IF;
                RETURN NEW;
            END $$""",
        """CREATE TRIGGER chunks_terms BEFORE INSERT OR UPDATE OF retrieval_text, level
            ON chunks FOR EACH ROW EXECUTE FUNCTION sheaf_chunk_terms()""",
        """CREATE TABLE embedding_models (
            space TEXT PRIMARY KEY, model TEXT NOT NULL, dimension INTEGER NOT NULL)""",
        f"""CREATE TABLE fingerprints (
            document_id TEXT PRIMARY KEY, space TEXT NOT NULL,
            fingerprint vector({FINGERPRINT_DIMENSION}) NOT NULL)""",
        "CREATE INDEX fingerprints_space ON fingerprints (space)",
        """CREATE TABLE enrichment_cache (
            key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL)""",
        """CREATE TABLE version_structure (
            version_id TEXT PRIMARY KEY, structure TEXT NOT NULL)""",
        "INSERT INTO sheaf_schema VALUES (1)",
    ),
    # Version 2 (ADR-0036): the retrieval prefix's markers ([DOC: …] [PATH: …]
    # [SECTION: …], [CONTEXT: …]) are no longer words of a snippet, and every snippet's
    # terms are also kept as postings, impact-ordered per term, so one query reads a
    # bounded number of rows per term (`text_ranking.BOUNDED_BM25_SCORES`).
    (
        f"""CREATE OR REPLACE FUNCTION sheaf_snippet_terms(retrieval TEXT)
            RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                SELECT to_tsvector('english', regexp_replace(retrieval,
                    '{PREFIX_MARKERS}', '\\1', 'g'))
            $$""",
        """CREATE OR REPLACE FUNCTION sheaf_chunk_terms() RETURNS trigger LANGUAGE plpgsql
            AS $$
            BEGIN
                IF NEW.level = 'snippet' THEN
                    NEW.terms := sheaf_snippet_terms(NEW.retrieval_text);
                    NEW.term_count := (SELECT coalesce(sum(cardinality(positions)), 0)
                                       FROM unnest(NEW.terms));
                ELSE
                    NEW.terms := NULL;
                    NEW.term_count := NULL;
                END IF;
                RETURN NEW;
            END $$""",
        # `impact` is the term's BM25 factor at a reference snippet length: a term's
        # postings read in its order give its best snippets first.
        """CREATE TABLE text_postings (
            space TEXT NOT NULL, term TEXT NOT NULL, chunk_id TEXT NOT NULL,
            tf INTEGER NOT NULL, length INTEGER NOT NULL, impact REAL NOT NULL)""",
        _postings_of("CREATE", 1.2, 0.75),
        """CREATE FUNCTION sheaf_postings_added() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO text_postings SELECT p.* FROM added a,
                    LATERAL sheaf_postings_of(a.space, a.id, a.terms, a.term_count) p
                    WHERE a.level = 'snippet';
                RETURN NULL;
            END $$""",
        """CREATE FUNCTION sheaf_postings_removed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                DELETE FROM text_postings p USING removed r
                    WHERE r.level = 'snippet' AND p.chunk_id = r.id;
                RETURN NULL;
            END $$""",
        """CREATE TRIGGER chunks_postings_added AFTER INSERT ON chunks
            REFERENCING NEW TABLE AS added FOR EACH STATEMENT
            EXECUTE FUNCTION sheaf_postings_added()""",
        """CREATE TRIGGER chunks_postings_removed AFTER DELETE ON chunks
            REFERENCING OLD TABLE AS removed FOR EACH STATEMENT
            EXECUTE FUNCTION sheaf_postings_removed()""",
        # What a store of version 1 holds, indexed again: the snippets' words without the
        # markers, then their postings (minutes at millions of snippets, once).
        """UPDATE chunks SET terms = sheaf_snippet_terms(retrieval_text),
            term_count = (SELECT coalesce(sum(cardinality(positions)), 0)
                          FROM unnest(sheaf_snippet_terms(retrieval_text)))
            WHERE level = 'snippet'""",
        """INSERT INTO text_postings SELECT p.* FROM chunks c,
            LATERAL sheaf_postings_of(c.space, c.id, c.terms, c.term_count) p
            WHERE c.level = 'snippet'""",
        "CREATE INDEX text_postings_impact ON text_postings (space, term, impact DESC) "
        "INCLUDE (chunk_id, tf, length)",
        "CREATE INDEX text_postings_chunk ON text_postings (chunk_id)",
    ),
    # Version 3 (ADR-0043): the fingerprints' HNSW index exists from the first document,
    # so the near-duplicate check of an ingest reads a few graph pages at any store size
    # (it scanned every fingerprint up to 20,000, and an ingest job then built the index).
    # A store that had built it keeps it; one left invalid by an interrupted build gets
    # it again. Built here in the migration's transaction: minutes at a million documents.
    (
        """DO $$ BEGIN
            IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
                       WHERE x.relname = 'fingerprints_hnsw' AND NOT i.indisvalid
                       AND x.relnamespace = current_schema()::regnamespace) THEN
                DROP INDEX fingerprints_hnsw;
            END IF;
        END $$""",
        "CREATE INDEX IF NOT EXISTS fingerprints_hnsw ON fingerprints USING hnsw "
        f"(fingerprint vector_cosine_ops) WITH (m = {HNSW_M}, "
        f"ef_construction = {HNSW_EF_CONSTRUCTION})",
    ),
    # Version 4 (ADR-0049): BM25's k1 is 1.5 in every store. A posting's impact orders a
    # term's postings for the bounded ranking, so it is computed again at the new k1: the
    # index dropped first, so the rewrite does not maintain it row by row (minutes at
    # millions of snippets, once).
    (
        _postings_of("CREATE OR REPLACE", K1, B),
        "DROP INDEX text_postings_impact",
        f"UPDATE text_postings SET impact = {_impact(K1, B, 'tf', 'length')}",
        "CREATE INDEX text_postings_impact ON text_postings (space, term, impact DESC) "
        "INCLUDE (chunk_id, tf, length)",
    ),
)


async def migrate(connection: psycopg.AsyncConnection[tuple[object, ...]],
                  location: str) -> None:
    """Create the vector extension when it is missing and bring the database to
    `SCHEMA_VERSION`, in one transaction under the migration lock (two processes
    creating the extension at once would otherwise collide); refuse a database written
    by a newer sheaf."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        present = await (await connection.execute(
            "SELECT 1 FROM pg_extension WHERE extname = 'vector'")).fetchone()
        if present is None:
            try:
                await connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.Error as exc:
                raise extension_error(exc, location) from None
        current = await schema_version(connection)
        if current > SCHEMA_VERSION:
            raise SheafError(ErrorKind.STORE_VERSION,
                             f"the store at {location} has schema version {current}; this "
                             f"sheaf knows up to {SCHEMA_VERSION}. Upgrade sheaf to open it.")
        for version in range(current, SCHEMA_VERSION):
            for statement in MIGRATIONS[version]:
                await connection.execute(statement)
            if version > 0:
                await connection.execute("UPDATE sheaf_schema SET version = %s",
                                         (version + 1,))


async def schema_version(connection: psycopg.AsyncConnection[tuple[object, ...]]) -> int:
    found = await (await connection.execute(
        "SELECT to_regclass('sheaf_schema') IS NOT NULL")).fetchone()
    if not found or not found[0]:
        return 0
    row = await (await connection.execute("SELECT max(version) FROM sheaf_schema")).fetchone()
    return int(row[0]) if row and row[0] is not None else 0  # type: ignore[call-overload]
