"""The conversation pane: the view, its controller, one reply's lifecycle, the prompt box and find."""
