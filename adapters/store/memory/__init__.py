"""The knowledge store in process memory: the fake of the storage ports for tests and
throwaway runs, the same contract as the DuckDB and PostgreSQL stores."""
