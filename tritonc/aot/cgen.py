"""The C launcher of `tritonc aot`: a header and a source with the cubins embedded.

For a kernel `add_kernel` the header declares

    CUresult add_kernel(CUstream stream, CUdeviceptr x_ptr, ..., int32_t n_elements);
    CUresult add_kernel_unload(void);

The launcher computes the grid from the formula over its arguments, picks the most
specialized variant whose conditions the arguments meet (pointers and integers
divisible by 16, integers equal to a constant), loads that variant's module once per
CUDA context (a small table per variant, guarded by a mutex; the cubin is chosen by the
device's compute capability: the same sm, else the newest older minor of the same
major), and launches it. Every failure is returned as a CUresult: CUDA_ERROR_INVALID_VALUE
for a grid out of range or arguments that no variant accepts, CUDA_ERROR_NO_BINARY_FOR_GPU
for a device with no matching cubin, CUDA_ERROR_INVALID_CONTEXT without a current
context. An empty grid launches nothing and succeeds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tritonc.aot.grid import to_c
from tritonc.aot.spec import KernelSpec, UsageError
from tritonc.runtime.specialization import DIV16

C_TYPES = {"i1": "int32_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t",
           "i64": "int64_t", "u1": "uint32_t", "u8": "uint8_t", "u16": "uint16_t",
           "u32": "uint32_t", "u64": "uint64_t", "fp16": "uint16_t", "bf16": "uint16_t",
           "fp32": "float", "fp64": "double"}
MAX_CONTEXTS = 16
STATIC_SMEM_LIMIT = 48 * 1024


def c_type(ty: str) -> str:
    """The C type of a kernel argument type (fp16/bf16 are passed as their 16 bits)."""
    if ty.startswith("*"):
        return "CUdeviceptr"
    if ty not in C_TYPES:
        raise UsageError(f"type {ty!r} has no C launcher type")
    return C_TYPES[ty]


@dataclass
class Variant:
    """One specialization compiled for several archs: cubin and metadata per sm."""

    spec: KernelSpec
    cubins: dict[int, bytes] = field(default_factory=dict)
    metadata: dict[int, dict] = field(default_factory=dict)


def launcher_params(kernel, constexprs: dict, variants: list[Variant]) -> list[tuple[str, str]]:
    """(name, type) of the launcher's arguments after the stream: the kernel's runtime
    parameters, typed by the variants (which must agree)."""
    params = []
    for p in kernel.params:
        if p.is_constexpr or p.name in constexprs:
            continue
        types = {v.spec.signature.get(p.name) or v.spec.fixed[p.name][0] for v in variants}
        if len(types) > 1:
            raise UsageError(f"the signatures give {p.name} different types: "
                             f"{', '.join(sorted(types))}")
        params.append((p.name, types.pop()))
    return params


def dispatch_order(variants: list[Variant]) -> list[Variant]:
    """The variants in the order the dispatcher tries them: most conditions first
    (stable, so equally specialized variants keep the order they were given in)."""
    return sorted(variants, key=lambda v: -len(v.spec.conditions()))


def _condition(name: str, kind: str, value, ty: str) -> str:
    if kind == DIV16.name:
        return DIV16.c_test(name)
    literal = repr(float(value)) + "f" if ty == "fp32" else repr(value)
    return f"({name} == {literal})"


def _bytes_c(data: bytes) -> str:
    rows = []
    for i in range(0, len(data), 20):
        rows.append("  " + ",".join(f"0x{b:02x}" for b in data[i:i + 20]) + ",")
    return "\n".join(rows)


def generate(kernel, constexprs: dict, variants: list[Variant], grid: list[ast.expr]
             ) -> tuple[str, str]:
    """(header, source) of the launcher of `kernel` over `variants`."""
    name = kernel.__name__
    params = launcher_params(kernel, constexprs, variants)
    types = dict(params)
    grid_names = {n: n for n, t in params if not t.startswith("*") and t[0] in "iu"}
    grid_names.update({k: str(int(v)) for k, v in constexprs.items()
                       if isinstance(v, int) and not isinstance(v, bool)})
    grid_c = [to_c(dim, grid_names) for dim in grid]
    variants = dispatch_order(variants)
    proto_args = ", ".join(["CUstream stream"] + [f"{c_type(t)} {n}" for n, t in params])
    header = _header(name, proto_args, variants, grid)
    parts = [_PRELUDE.format(name=name, nvariants=len(variants), max_ctx=MAX_CONTEXTS)]
    call_args = ", ".join(["stream", "gx", "gy", "gz"] + [n for n, _ in params])
    for index, variant in enumerate(variants):
        parts.append(_variant_source(name, index, variant, proto_args))
    dispatch = []
    for index, variant in enumerate(variants):
        conds = [_condition(n, kind, value, types[n]) for n, kind, value in
                 variant.spec.conditions()]
        call = f"return {name}_v{index}({call_args});"
        dispatch.append(f"  if ({' && '.join(conds)}) {call}" if conds else f"  {call}")
    if variants[-1].spec.conditions():
        dispatch.append("  return CUDA_ERROR_INVALID_VALUE; /* no variant accepts these */")
    parts.append(_LAUNCHER.format(name=name, args=proto_args, gx=grid_c[0], gy=grid_c[1],
                                  gz=grid_c[2], dispatch="\n".join(dispatch),
                                  nvariants=len(variants), max_ctx=MAX_CONTEXTS))
    return header, "\n".join(parts)


def _header(name: str, proto_args: str, variants: list[Variant], grid: list[ast.expr]) -> str:
    lines = [f" *   {i}: {v.spec.text or '(no runtime arguments)'}  "
             f"sm_{', sm_'.join(str(a) for a in sorted(v.cubins))}"
             for i, v in enumerate(variants)]
    formula = ", ".join(ast.unparse(d) for d in grid)
    return f"""/* {name}.h: generated by `tritonc aot`; do not edit.
 *
 * {name}(stream, ...) launches the kernel on `stream` with the grid ({formula}),
 * picking the first of these variants whose conditions the arguments meet:
{chr(10).join(lines)}
 * Errors are returned as CUresult; nothing exits. {name}_unload() unloads the modules
 * loaded in the current context (call it only when no launch is in flight). */
#ifndef TRITONC_AOT_{name.upper()}_H
#define TRITONC_AOT_{name.upper()}_H

#include <stdint.h>
#ifdef TRITONC_CUDA_MIN
#include "cuda_min.h"
#else
#include <cuda.h>
#endif

#ifdef __cplusplus
extern "C" {{
#endif

CUresult {name}({proto_args});
CUresult {name}_unload(void);

#ifdef __cplusplus
}}
#endif
#endif
"""


def _variant_source(name: str, index: int, variant: Variant, proto_args: str) -> str:
    out = []
    entries = []
    for arch in sorted(variant.cubins):
        meta = variant.metadata[arch]
        shared = int(meta.get("shared", 0))
        threads = int(meta["threads"])
        symbol = f"{name}_v{index}_sm{arch}"
        out.append(f"static const unsigned char {symbol}[] __attribute__((aligned(8))) = {{\n"
                   f"{_bytes_c(variant.cubins[arch])}\n}};")
        entries.append(f"  {{{arch}, {symbol}, {shared}u, {threads}u}},")
    out.append(f"static const tritonc_image {name}_v{index}_images[] = {{\n"
               + "\n".join(entries) + "\n};")
    kernel_args = list(variant.spec.signature)
    unused = "".join(f"  (void){n};\n" for n in variant.spec.fixed)
    if kernel_args:
        params = f"  void *params[] = {{{', '.join('&' + a for a in kernel_args)}}};"
    else:
        params = "  void **params = NULL;"
    out.append(f"""
/* variant {index}: {variant.spec.text} */
static CUresult {name}_v{index}(CUstream stream, unsigned int gx, unsigned int gy,
    unsigned int gz{''.join(', ' + a for a in proto_args.split(', ')[1:])}) {{
  tritonc_loaded *k;
  CUresult err = {name}_get({index}, {name}_v{index}_images,
      (int)(sizeof({name}_v{index}_images) / sizeof(tritonc_image)), &k);
  if (err != CUDA_SUCCESS) return err;
{unused}{params}
  return cuLaunchKernel(k->function, gx, gy, gz, k->image->threads, 1, 1, k->image->shared,
                        stream, params, NULL);
}}
""")
    return "\n".join(out)


_PRELUDE = """/* {name}.c: generated by `tritonc aot`; do not edit. */
#include "{name}.h"

#include <pthread.h>
#include <stddef.h>

typedef struct {{
  int arch;                   /* sm_XX of the cubin */
  const unsigned char *data;  /* the cubin */
  unsigned int shared;        /* dynamic shared memory per block, bytes */
  unsigned int threads;       /* threads per block */
}} tritonc_image;

typedef struct {{
  CUcontext ctx;
  CUmodule module;
  CUfunction function;
  const tritonc_image *image;
}} tritonc_loaded;

static tritonc_loaded {name}_loaded[{nvariants}][{max_ctx}];
static pthread_mutex_t {name}_lock = PTHREAD_MUTEX_INITIALIZER;

static inline int64_t tritonc_div(int64_t a, int64_t b, int *bad) {{
  if (b == 0) {{ *bad = 1; return 0; }}
  return a / b;
}}
static inline int64_t tritonc_mod(int64_t a, int64_t b, int *bad) {{
  if (b == 0) {{ *bad = 1; return 0; }}
  return a % b;
}}
static inline int64_t tritonc_cdiv(int64_t a, int64_t b, int *bad) {{
  if (b == 0) {{ *bad = 1; return 0; }}
  return (a + b - 1) / b;
}}
static inline int64_t tritonc_min(int64_t a, int64_t b) {{ return a < b ? a : b; }}
static inline int64_t tritonc_max(int64_t a, int64_t b) {{ return a > b ? a : b; }}

/* The cubin for the current device: its own sm, else the newest older minor of the
 * same major (a cubin runs on later minors of its major only). */
static CUresult {name}_pick(const tritonc_image *images, int n, const tritonc_image **out) {{
  CUdevice dev;
  int major, minor, i, best = -1;
  CUresult err = cuCtxGetDevice(&dev);
  if (err != CUDA_SUCCESS) return err;
  err = cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  if (err != CUDA_SUCCESS) return err;
  err = cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  if (err != CUDA_SUCCESS) return err;
  for (i = 0; i < n; i++) {{
    int arch = images[i].arch;
    if (arch / 10 == major && arch % 10 <= minor && (best < 0 || arch > images[best].arch))
      best = i;
  }}
  if (best < 0) return CUDA_ERROR_NO_BINARY_FOR_GPU;
  *out = &images[best];
  return CUDA_SUCCESS;
}}

/* The loaded kernel of one variant in the current context, loading it on first use. */
static CUresult {name}_get(int variant, const tritonc_image *images, int n,
                           tritonc_loaded **out) {{
  CUcontext ctx = NULL;
  CUresult err = cuCtxGetCurrent(&ctx);
  tritonc_loaded *slots = {name}_loaded[variant], *slot = NULL;
  const tritonc_image *image = NULL;
  CUmodule module = NULL;
  CUfunction function = NULL;
  int i;
  if (err != CUDA_SUCCESS) return err;
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock(&{name}_lock);
  for (i = 0; i < {max_ctx}; i++) {{
    if (slots[i].ctx == ctx) {{
      *out = &slots[i];
      pthread_mutex_unlock(&{name}_lock);
      return CUDA_SUCCESS;
    }}
    if (slot == NULL && slots[i].ctx == NULL) slot = &slots[i];
  }}
  err = slot == NULL ? CUDA_ERROR_OUT_OF_MEMORY : {name}_pick(images, n, &image);
  if (err == CUDA_SUCCESS) err = cuModuleLoadData(&module, image->data);
  if (err == CUDA_SUCCESS) err = cuModuleGetFunction(&function, module, "{name}");
  if (err == CUDA_SUCCESS && image->shared > {static_limit})
    err = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             (int)image->shared);
  if (err == CUDA_SUCCESS && image->shared > {static_limit})
    err = cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 100);
  if (err == CUDA_SUCCESS) {{
    slot->module = module;
    slot->function = function;
    slot->image = image;
    slot->ctx = ctx;
    *out = slot;
  }} else if (module != NULL) {{
    cuModuleUnload(module);
  }}
  pthread_mutex_unlock(&{name}_lock);
  return err;
}}
""".replace("{static_limit}", str(STATIC_SMEM_LIMIT))

_LAUNCHER = """CUresult {name}({args}) {{
  int bad_flag = 0;
  int *bad = &bad_flag;
  (void)bad;  /* a grid of constants divides by nothing */
  int64_t gx = {gx};
  int64_t gy = {gy};
  int64_t gz = {gz};
  if (bad_flag || gx < 0 || gy < 0 || gz < 0 || gx > 2147483647LL || gy > 65535 || gz > 65535)
    return CUDA_ERROR_INVALID_VALUE;
  if (gx == 0 || gy == 0 || gz == 0) return CUDA_SUCCESS;
{dispatch}
}}

CUresult {name}_unload(void) {{
  CUcontext ctx = NULL;
  CUresult err = cuCtxGetCurrent(&ctx), first = CUDA_SUCCESS;
  int v, i;
  if (err != CUDA_SUCCESS) return err;
  if (ctx == NULL) return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock(&{name}_lock);
  for (v = 0; v < {nvariants}; v++)
    for (i = 0; i < {max_ctx}; i++)
      if ({name}_loaded[v][i].ctx == ctx) {{
        err = cuModuleUnload({name}_loaded[v][i].module);
        if (first == CUDA_SUCCESS) first = err;
        {name}_loaded[v][i].ctx = NULL;
      }}
  pthread_mutex_unlock(&{name}_lock);
  return first;
}}
"""
