"""Rill's Qt layer: the inference thread, the chat controller and the widgets."""
