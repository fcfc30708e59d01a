"""Blobs and staged artifacts in an S3-compatible bucket, and the URL, settings and one
connection they share."""
