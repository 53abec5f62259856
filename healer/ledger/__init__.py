"""Pure bookkeeping from the healer's own comments: markers, the ledger, attempt memory, flaky tests."""
