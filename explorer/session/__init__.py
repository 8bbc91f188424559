"""What the window shows of one session: its data loaded at once, the preview laid over
its tree, its cost curve and its reported usage."""
