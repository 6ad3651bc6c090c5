"""Inference backends behind one contract: the local llama.cpp model, remote servers, the scripted producer (Qt-free)."""
