# Layer build fragment (included by the top-level Makefile).
# Builds $(BUILD)/libtlob.a and $(BUILD)/tlob with nvcc + cc only.
.PHONY: layer
layer:
