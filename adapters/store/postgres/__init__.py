"""The knowledge store on PostgreSQL + pgvector: `knowledge_store` opens it and hands
out one implementation per port (`catalogue`, `search_index`, `unit_of_work`,
`space_policies`, `answer_cache`) over one pool (`connection`); `schema`, `rows`,
`text_ranking`, `vector_tables` and `vector_indexes` are what they are built on."""
