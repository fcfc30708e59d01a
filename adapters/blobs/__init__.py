"""Raw bytes and staged artifacts: in a folder, in an S3-compatible bucket, in memory."""
