"""Escalero and Generala rules as data, the sheet model, validation and settlement."""
