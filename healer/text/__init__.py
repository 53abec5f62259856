"""What the healer writes: frames, comments and summaries (prompts/ holds their templates), scrubbing."""
