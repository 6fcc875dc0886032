"""Loading a compiled kernel on the GPU and the `run` function Inductor's launchers call.

`run(gx, gy, gz, stream, function, metadata, launch_metadata, enter_hook, exit_hook,
*args)` receives every parameter of the kernel in order. The function is generated per
kernel: it drops the constants, turns tensors into device addresses (a host
`TensorDescriptor` into its kernel arguments, `runtime/descriptors.py`) and calls the C
launcher (`runtime/c_launcher.py`) directly; a kernel whose launch encodes the maps of
descriptors it makes (`tensormaps`) goes through its `Launcher`, which appends them.
"""

from __future__ import annotations

from typing import Any

from tritonc.inductor.errors import OutOfResources
from tritonc.runtime import descriptors

_MAX_REGISTERS_PER_SM = 65536


def _check_resources(kernel: Any, driver: Any) -> None:
    """OutOfResources where the device cannot run the kernel (as Triton raises it)."""
    attrs = driver.device_attributes()
    if kernel.shared > attrs.max_shared_per_block_optin:
        raise OutOfResources(kernel.shared, attrs.max_shared_per_block_optin, "shared memory")
    if kernel.n_regs and kernel.n_regs * kernel.n_max_threads > _MAX_REGISTERS_PER_SM:
        raise OutOfResources(kernel.n_regs * kernel.n_max_threads, _MAX_REGISTERS_PER_SM,
                             "registers")


def _runner_source(arg_names: list[str], runtime: dict[str, str]) -> str:
    params = [f"a{i}" for i in range(len(arg_names))]
    passed = []
    for i, name in enumerate(arg_names):
        if name in runtime:
            ty = runtime[name]
            if descriptors.parse(ty) is not None:
                passed.append(f"*flat(a{i})")  # a host TensorDescriptor: its kernel arguments
            else:
                passed.append(f"a{i}.data_ptr()" if ty.startswith("*") else f"a{i}")
    args = "".join(f", {p}" for p in passed)
    return "\n".join([
        f"def run(gx, gy, gz, stream, function, metadata, launch_metadata, enter_hook, "
        f"exit_hook, {', '.join(params + ['*_'])}):",
        "    if enter_hook is not None:",
        "        enter_hook(launch_metadata)",
        f"    result = raw(gx, gy, gz, stream{args})",
        "    if result:",
        f"        launcher.failed(result, gx, gy, gz, stream{args})",
        "    if exit_hook is not None:",
        "        exit_hook(launch_metadata)",
    ])


def _flat(desc: Any) -> list:
    """The kernel arguments of a host descriptor, tensors as their device addresses."""
    return [v.data_ptr() if hasattr(v, "data_ptr") else v
            for v in descriptors.flat_values(desc)]


def load_runner(kernel: Any) -> tuple[int, int, Any]:
    """(module, function, run) of `kernel`, loaded into the current CUDA context."""
    from tritonc.runtime.c_launcher import KernelLauncher
    from tritonc.runtime.driver import get_driver

    driver = get_driver()
    driver.current_context()
    _check_resources(kernel, driver)
    module = driver.load_module(kernel.asm["cubin"], kernel.name)
    function = driver.get_function(module, kernel.name)
    if kernel.shared > 48 * 1024:
        driver.set_max_dynamic_shared(function, kernel.shared)
    runtime = kernel.src.runtime_signature()
    types = [t for ty in runtime.values()
             for t in (descriptors.flat_types(ty) if descriptors.parse(ty) else [ty])]
    launcher = KernelLauncher(driver.launcher(function, types, (kernel.n_max_threads, 1, 1),
                                              kernel.shared, kernel.tensormaps))
    scope: dict[str, Any] = {"raw": launcher.raw, "launcher": launcher, "flat": _flat}
    exec(compile(_runner_source(kernel.src.fn.arg_names, runtime), f"<run {kernel.name}>",
                 "exec"), scope)
    return module, function, scope["run"]
