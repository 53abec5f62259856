"""One run and one command, stage by stage (the only place that knows the order of the stages)."""
