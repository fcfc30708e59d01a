"""The knowledge store on an embedded DuckDB file: sheaf's default, no server needed.

`knowledge_store.DuckDbKnowledgeStore` opens, locks (`store_lock`), migrates (`schema`)
and closes the file, and hands out one object per port, each over the one
`connection.DuckDbConnection`: `catalogue`, `search_index` (with `vector_search`,
`hnsw_index`), `space_policies`, `answer_cache` and `unit_of_work` (whose statements are
`row_writes`); `maintenance` repairs, settles and compacts the file."""
