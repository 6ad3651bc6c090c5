"""Small UI foundations every package may use: themes, fonts, translations,
shortcuts, the crash guard, the single-instance lock.
"""
