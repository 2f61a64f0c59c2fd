"""The edit-format benchmark: runs exercises against a model, records, reports."""
