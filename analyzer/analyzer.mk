# gpulint build fragment (included by the top-level Makefile).
.PHONY: analyzer
analyzer:
