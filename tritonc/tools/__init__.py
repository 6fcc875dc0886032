"""Host-side helpers for kernel authors (`tritonc.tools.tensor_descriptor`)."""
