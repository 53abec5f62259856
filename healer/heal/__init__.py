"""The effects of a heal: workspace (git), isolation, agent and fix commands, guard, verify, delivery."""
