"""Everything that runs off the GUI thread, and the helpers that talk to it:
inference, rendering, the store, the library of conversations.
"""
