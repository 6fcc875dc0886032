"""The state of one lowering: values per register, thread ids, shared memory, emitters.

A TTGIR tensor value becomes the list of scalar values this thread holds, one per
register of its layout (`layouts.BlockedLayout`); a scalar value becomes a list of one.
`LoweringContext` maps each TTGIR value to that list and offers small emitters for
the per-thread code (`op`, `const`, `i32`), the coordinates of each register, and a
shared-memory scratch buffer used to move data between layouts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tritonc.compiler import mlir_loader
from tritonc.passes.ttgir.layouts import Layout, parse_layout

ir = mlir_loader.load()

_PTR = re.compile(r"^!tt\.ptr<(.*), (\d+) : i32>$")


class LoweringError(Exception):
    """An op the CUDA lowering cannot handle, with the op's location."""


def pointee_text(ty) -> tuple[str, int] | None:
    """('f32', 1) for `!tt.ptr<f32, 1 : i32>`, None for other types."""
    m = _PTR.match(str(ty))
    return (m.group(1), int(m.group(2))) if m else None


def bit_fields(columns: Sequence[int]) -> list[tuple[int, int, int]]:
    """(first bit, bit count, column) of each run of id bits whose columns double from the
    first (bit first + i has column << i), so that the run's contribution is one field of
    the id, ((id >> first) & (2^count - 1)) * column; bits of column 0 are in no run."""
    out: list[tuple[int, int, int]] = []
    bit = 0
    while bit < len(columns):
        column, count = columns[bit], 1
        while bit + count < len(columns) and columns[bit + count] == column << count:
            count += 1
        if column:
            out.append((bit, count, column))
        bit += count
    return out


class LoweringContext:
    """Everything a lowering rule needs; rules build ops at `self.ip`."""

    def __init__(self, num_warps: int, smem_base, loc) -> None:
        self.num_warps = num_warps
        self.values: dict[Any, list] = {}
        self.smem_base = smem_base
        self.smem_bytes = 0
        self.ip: ir.InsertionPoint | None = None
        self.loc = loc
        self.lane = self.warp = None
        self._bases: dict[tuple, list] = {}
        self._smem_base32 = None
        self.smem_used = False  # whether code emitted so far addresses shared memory
        self.loop_depth = 0  # loops around the insertion point, in the kernel or made here
        self._consts: dict[tuple, Any] = {}
        self.declared: set[str] = set()
        self.module_ip: ir.InsertionPoint | None = None
        self.num_stages = 1
        self.arch = 80  # compute capability the code is for
        self.arch_specific = False  # set by rules emitting sm_90a-only instructions
        # software pipelining (pipeline.py): ring buffers placed after the scratch area
        self.pipeline_bytes = 0
        self.pipeline_base = None  # an i32 constant, set once the scratch size is known
        self.smem_operands: dict = {}  # pipelined load result -> its buffer's byte offset
        self.read_back: dict = {}  # pipelined load result read into registers -> ReadBack
        self.resident_base = None  # i32 constant: after the rest, operands staged before loops
        self.resident_bytes = 0
        self.resident: dict = {}  # value -> Resident
        self.smem_k_major: set = set()  # pipelined B tiles stored one column per row
        self.prefetched: set = set()  # loads whose registers a prefetching loop carries
        self.pipelining = 0  # depth of pipelined loops being lowered
        self.async_dots: set = set()  # wgmma results left in flight across iterations
        self.carried_dots: set = set()  # ... and waited for by the next iteration's wgmma
        self.load_guard = None  # an i1 every load also needs (a later iteration's, pipeline.py)
        self.scratch_in_pipeline = False  # scratch used while ring buffers are live
        self.extra_yields: dict = {}  # scf.yield -> values appended to it
        # (dot, run, after its wait): run once that dot is issued, or once it is done
        # reading its operands (pipeline.py)
        self.after_dot = None
        # warp specialization (warp_roles.py): the threads of the warps lowered now
        # (consumers synchronise among themselves, a named barrier), the one that issues
        # their single-thread copies
        self.role_threads: int | None = None
        self.first_thread = 0
        self.ws_counter = None  # i32 in a local: the ring iterations this thread has done
        # values whose registers a wgmma may still write, and what waits for them
        self.in_flight: set = set()
        self.settle = None

    # -- values -------------------------------------------------------------------------
    def get(self, value) -> list:
        if self.in_flight and value in self.in_flight:
            self.settle()
        try:
            return self.values[value]
        except KeyError:
            raise LoweringError(f"value {value.get_name()} used before it was lowered") from None

    def set(self, value, regs: Sequence) -> None:
        self.values[value] = list(regs)

    # -- types ------------------------------------------------------------------------
    @staticmethod
    def is_tensor(ty) -> bool:
        return isinstance(ty, ir.RankedTensorType)

    def layout(self, ty) -> Layout:
        return parse_layout(str(ir.RankedTensorType(ty).encoding))

    @staticmethod
    def shape(ty) -> tuple[int, ...]:
        return tuple(ir.RankedTensorType(ty).shape)

    def scalar_type(self, ty):
        """The per-thread type of one element: pointers become `!llvm.ptr<addrspace>`."""
        elt = ir.RankedTensorType(ty).element_type if self.is_tensor(ty) else ty
        ptr = pointee_text(elt)
        if ptr is not None:
            return ir.Type.parse(f"!llvm.ptr<{ptr[1]}>")
        if str(elt).startswith("f8"):
            return ir.IntegerType.get_signless(8)  # fp8 travels as its bits
        return elt

    @staticmethod
    def element_type(ty):
        return ir.RankedTensorType(ty).element_type if isinstance(ty, ir.RankedTensorType) else ty

    def num_registers(self, ty) -> int:
        return len(self.register_types(ty))

    def register_types(self, ty) -> list:
        """The per-thread values one value of type `ty` becomes."""
        if self.is_tensor(ty):
            return [self.scalar_type(ty)] * self.layout(ty).num_registers(self.shape(ty))
        ptr = pointee_text(ty)
        text = str(ty)
        i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
        if ptr is not None and ptr[0].startswith("tensor<"):
            rank = ptr[0].count("x")
            return [ir.Type.parse(f"!llvm.ptr<{ptr[1]}>")] + [i64] * (2 * rank) + [i32] * rank
        if text.startswith("!tt.tensordesc"):
            rank = text.count("x")
            return [ir.Type.parse("!llvm.ptr<1>")] + [i32] * rank + [i64] * rank
        return [self.scalar_type(ty)]

    # -- emitters ---------------------------------------------------------------------
    def op(self, name: str, operands: Sequence, result_types: Sequence = (), attrs=None):
        op = ir.Operation.create(name, results=list(result_types), operands=list(operands),
                                 attributes=attrs or {}, loc=self.loc, ip=self.ip)
        return op

    def value(self, name: str, operands: Sequence, result_type, attrs=None):
        return self.op(name, operands, [result_type], attrs).results[0]

    def asm(self, text: str, operands: Sequence = (), constraints: str = "") -> None:
        """Inline PTX `text` run for its effect (no results) on `operands`."""
        self.op("llvm.inline_asm", list(operands), [], {
            "asm_string": ir.StringAttr.get(text), "constraints": ir.StringAttr.get(constraints),
            "has_side_effects": ir.UnitAttr.get()})

    def const(self, value: int | float | bool, ty):
        """A scalar constant (cached per function body position is not needed: CSE runs)."""
        if isinstance(ty, ir.IntegerType):
            width = ir.IntegerType(ty).width
            v = int(value) & ((1 << width) - 1)
            if width > 1 and v >= 1 << (width - 1):
                v -= 1 << width
            attr = ir.IntegerAttr.get(ty, v)
        else:
            attr = ir.FloatAttr.get(ty, float(value))
        return self.value("arith.constant", [], ty, {"value": attr})

    def i32(self, value: int):
        return self.const(value, ir.IntegerType.get_signless(32))

    def i32_type(self):
        return ir.IntegerType.get_signless(32)

    def binop(self, name: str, a, b):
        return self.value(name, [a, b], a.type)

    def pack(self, values: Sequence, word_ty):
        """Scalars of one type, the first in the low bits, as one value of `word_ty` (an
        integer of their total width)."""
        vec_ty = ir.VectorType.get([len(values)], values[0].type)
        vec = self.value("llvm.mlir.poison", [], vec_ty)
        for i, v in enumerate(values):
            vec = self.value("llvm.insertelement", [vec, v, self.i32(i)], vec_ty)
        return self.value("llvm.bitcast", [vec], word_ty)

    def unpack(self, word, elt_ty, count: int) -> list:
        """The `count` scalars of type `elt_ty` that `pack` made `word` of."""
        vec = self.value("llvm.bitcast", [word], ir.VectorType.get([count], elt_ty))
        return [self.value("llvm.extractelement", [vec, self.i32(i)], elt_ty)
                for i in range(count)]

    def call_extern(self, symbol: str, args: Sequence, ret_ty):
        """A call of an external function (a libdevice `__nv_*`), declared once per module."""
        if symbol not in self.declared:
            arg_text = ", ".join(str(a.type) for a in args)
            fn_type = ir.Type.parse(f"!llvm.func<{ret_ty}({arg_text})>")
            ir.Operation.create("llvm.func", attributes={
                "sym_name": ir.StringAttr.get(symbol),
                "function_type": ir.TypeAttr.get(fn_type),
                "linkage": ir.Attribute.parse("#llvm.linkage<external>"),
                "sym_visibility": ir.StringAttr.get("private")},
                regions=1, loc=self.loc, ip=self.module_ip)
            self.declared.add(symbol)
        void = str(ret_ty) == "!llvm.void"
        call = self.op("llvm.call", list(args), [] if void else [ret_ty], {
            "callee": ir.FlatSymbolRefAttr.get(symbol),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(args), 0]),
            "op_bundle_sizes": ir.DenseI32ArrayAttr.get([])})
        return None if void else call.results[0]

    # -- thread geometry --------------------------------------------------------------------
    def init_thread_ids(self) -> None:
        index = ir.IndexType.get()
        tid = self.value("gpu.thread_id", [], index,
                         {"dimension": ir.Attribute.parse("#gpu<dim x>")})
        tid = self.value("arith.index_cast", [tid], self.i32_type())
        self.lane = self.binop("arith.andi", tid, self.i32(31))
        self.warp = self.binop("arith.shrui", tid, self.i32(5))
        self.tid = tid

    def bases(self, layout: Layout, shape: tuple[int, ...]) -> list:
        """base_d(lane, warp) for every dimension d (see layouts.py)."""
        key = (layout, shape)
        if key not in self._bases:
            saved = self.ip
            self.ip = self.entry_ip
            parts: list = [None] * layout.rank
            for ident, strides, bits in (
                    (self.lane, layout.lane_strides(), 5),
                    (self.warp, layout.warp_strides(shape), self.num_warps.bit_length() - 1)):
                runs = sorted((*run, d) for d in range(layout.rank) for run in bit_fields(
                    [stride if dim == d else 0 for dim, stride in strides]))
                for bit, count, stride, d in runs:
                    field = self.binop("arith.shrui", ident, self.i32(bit)) if bit else ident
                    if bit + count < bits:  # the id's top bits need no mask
                        field = self.binop("arith.andi", field, self.i32((1 << count) - 1))
                    term = self.binop("arith.muli", field, self.i32(stride))
                    parts[d] = term if parts[d] is None else self.binop("arith.addi", parts[d],
                                                                        term)
            self._bases[key] = [p if p is not None else self.i32(0) for p in parts]
            self.ip = saved
        return self._bases[key]

    def coordinates(self, ty) -> list[list]:
        """For each register of `ty`, its coordinate along each dimension (i32 values)."""
        layout, shape = self.layout(ty), self.shape(ty)
        bases = self.bases(layout, shape)
        coords = []
        for offsets in layout.register_offsets(shape):
            row = []
            for d, off in enumerate(offsets):
                c = self.binop("arith.addi", bases[d], self.i32(off)) if off else bases[d]
                if layout.tile(d) > shape[d]:
                    c = self.binop("arith.andi", c, self.i32(shape[d] - 1))
                row.append(c)
            coords.append(row)
        return coords

    def owner_predicates(self, ty) -> list | None:
        """For each register, whether this thread is the one copy of its element that acts
        (atomics, prints): lanes and warps whose id bits only select copies must be 0.
        None when the layout holds every element once."""
        layout, shape = self.layout(ty), self.shape(ty)
        copies = []
        for ident, strides in ((self.lane, layout.lane_strides()),
                               (self.warp, layout.warp_strides(shape))):
            for bit, (d, stride) in enumerate(strides):
                if stride == 0 or stride >= shape[d]:
                    copies.append((ident, bit))
        if not copies:
            return None
        pred = None
        for ident, bit in copies:
            on = self.binop("arith.andi", ident, self.i32(1 << bit))
            zero = self.value("arith.cmpi", [on, self.i32(0)], ir.IntegerType.get_signless(1),
                              {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
            pred = zero if pred is None else self.binop("arith.andi", pred, zero)
        return [pred] * self.num_registers(ty)

    def linear_index(self, coords: Sequence, shape: Sequence[int]):
        """Row-major index of a coordinate (i32)."""
        index = None
        stride = 1
        for d in range(len(shape) - 1, -1, -1):
            term = coords[d] if stride == 1 else self.binop("arith.muli", coords[d],
                                                            self.i32(stride))
            index = term if index is None else self.binop("arith.addi", index, term)
            stride *= shape[d]
        return index if index is not None else self.i32(0)

    # -- shared memory -------------------------------------------------------------------------
    def reserve_smem(self, nbytes: int) -> None:
        self.smem_bytes = max(self.smem_bytes, (nbytes + 15) // 16 * 16)
        if self.pipelining:
            self.scratch_in_pipeline = True

    def smem_ptr(self, index, elt_type, byte_offset=0):
        """&scratch[byte_offset + index * sizeof(elt_type)] (a `!llvm.ptr<3>`); the byte
        offset is an int or an i32 value."""
        self.smem_used = True
        base = self.smem_base
        if not isinstance(byte_offset, int) or byte_offset:
            offset = self.i32(byte_offset) if isinstance(byte_offset, int) else byte_offset
            base = self.value("llvm.getelementptr", [base, offset],
                              ir.Type.parse("!llvm.ptr<3>"),
                              {"rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
                               "elem_type": ir.TypeAttr.get(ir.IntegerType.get_signless(8))})
        return self.value("llvm.getelementptr", [base, index],
                          ir.Type.parse("!llvm.ptr<3>"),
                          {"rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
                           "elem_type": ir.TypeAttr.get(elt_type)})

    def for_loop(self, lb: int, ub: int, inits: Sequence, body) -> list:
        """An scf.for from `lb` to `ub` carrying `inits`; `body(iv, values)` returns the
        next values. Used for loops the lowering itself creates (scans, axis reductions)."""
        loop = ir.Operation.create("scf.for", results=[v.type for v in inits],
                                   operands=[self.i32(lb), self.i32(ub), self.i32(1), *inits],
                                   regions=1, loc=self.loc, ip=self.ip)
        block = loop.regions[0].blocks.append(self.i32_type(), *[v.type for v in inits])
        saved = self.ip
        self.ip = ir.InsertionPoint(block)
        self.loop_depth += 1
        nxt = body(block.arguments[0], list(block.arguments)[1:])
        self.loop_depth -= 1
        self.op("scf.yield", nxt)
        self.ip = saved
        return list(loop.results)

    def smem_address(self, index, elt_bytes: int, byte_offset):
        """The 32-bit shared-memory address of element `index` (of `elt_bytes` bytes) after
        `byte_offset`, for instructions that take one (ldmatrix, cp.async): i32 arithmetic
        from the scratch base, no 64-bit pointer per access."""
        self.smem_used = True
        if self._smem_base32 is None:
            saved, self.ip = self.ip, self.entry_ip
            self._smem_base32 = self.value("llvm.ptrtoint", [self.smem_base], self.i32_type())
            self.ip = saved
        offset = self.i32(byte_offset) if isinstance(byte_offset, int) else byte_offset
        scaled = self.binop("arith.muli", index, self.i32(elt_bytes)) if elt_bytes > 1 else index
        return self.binop("arith.addi", self.binop("arith.addi", self._smem_base32, offset),
                          scaled)

    def ldmatrix(self, address, count: int, trans: bool = False) -> list:
        """`ldmatrix.sync.aligned.m8n8.x{count}` of 16-bit elements at the 32-bit shared
        address each lane gives (lane 8 m + r: row r of matrix m): per matrix, the i32
        word holding two elements."""
        regs = ", ".join(f"${i}" for i in range(count))
        asm = (f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16 "
               f"{{{regs}}}, [${count}];")
        i32 = self.i32_type()
        ty = ir.Type.parse(f"!llvm.struct<({', '.join(['i32'] * count)})>")
        out = self.value("llvm.inline_asm", [address], ty, {
            "asm_string": ir.StringAttr.get(asm),
            "constraints": ir.StringAttr.get(",".join(["=r"] * count + ["r"])),
            "has_side_effects": ir.UnitAttr.get()})
        return [self.value("llvm.extractvalue", [out], i32,
                           {"position": ir.DenseI64ArrayAttr.get([q])}) for q in range(count)]

    def stmatrix(self, address, words: list) -> None:
        """`stmatrix.sync.aligned.m8n8.x{len(words)}` of 16-bit elements (sm_90) at the
        32-bit shared address each lane gives (lane 8 m + r: row r of matrix m): per
        matrix, the i32 word holding two elements."""
        count = len(words)
        regs = ", ".join(f"${i + 1}" for i in range(count))
        self.asm(f"stmatrix.sync.aligned.m8n8.x{count}.shared.b16 [$0], {{{regs}}};",
                 [address, *words], ",".join(["r"] * (count + 1)))

    def prmt(self, a, b, selector: int):
        """`prmt.b32`: byte k of the result is byte (selector >> 4k) & 7 of b:a (i32s)."""
        return self.value("llvm.inline_asm", [a, b], self.i32_type(), {
            "asm_string": ir.StringAttr.get(f"prmt.b32 $0, $1, $2, {selector:#x};"),
            "constraints": ir.StringAttr.get("=r,r,r")})

    def barrier(self) -> None:
        if self.role_threads is None:
            self.op("gpu.barrier", [])
        else:
            self.asm(f"bar.sync 1, {self.role_threads};")

    def guard_barrier(self) -> None:
        """The barrier before threads write shared memory that others may still be reading
        from an earlier use. None is needed before the kernel's first use of shared memory
        in program order, outside any loop (inside one, the previous iteration's reads
        come first)."""
        if self.smem_used or self.loop_depth:
            self.barrier()
