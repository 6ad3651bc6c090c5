"""Text utilities with no knowledge of conversations: incremental decoding,
display breaks, thinking tags, token estimates (Qt-free).
"""
