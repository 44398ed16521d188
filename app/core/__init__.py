"""The domain model. Never imports Qt (tests/core/test_no_qt.py checks it)."""
