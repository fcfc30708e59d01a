"""Pieces the S3 blob and artifact stores share: the URL, the settings, one connection."""
