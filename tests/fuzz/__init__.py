"""A differential fuzzer: seeded random kernels against an independent numpy reference.

`generator.py` draws a kernel (elementwise 1-D or 2-D, a reduction or a scan, with masks
over sizes that are not multiples of the block, over every dtype) and writes its source;
`reference.py` evaluates the same expression with numpy under Triton's typing rules,
written here from Triton's documentation and independent of tritonc's semantic layer;
`runner.py` runs a case in the interpreter (or compiled on a GPU, against the
interpreter) and minimises a disagreement. `python -m tests.fuzz --count 1000` runs a
long campaign; `tests/fuzz/test_fuzz.py` runs a bounded one in `make test`.
"""
