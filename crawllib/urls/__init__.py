"""URL tools: normalizers, filters, partitioning and reversed-URL row keys."""
