"""Pure diagnosis: the log model, read-back, rules, classification, excerpts, test ids, triage."""
