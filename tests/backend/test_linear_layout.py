"""The linear-layout algebra against brute-force enumeration of random GF(2) maps."""

import itertools
import random

import numpy as np
import pytest

from tritonc.passes.ttgir.linear_layout import LinearLayout


def random_layout(rng: random.Random, in_bits: dict, shape: tuple, surjective: bool = False,
                  zero_chance: float = 0.2) -> LinearLayout:
    """Random bases, each coordinate a random value inside the shape (some all-zero)."""
    while True:
        bases = {name: [tuple(0 if rng.random() < zero_chance else rng.randrange(s)
                              for s in shape) for _ in range(n)]
                 for name, n in in_bits.items()}
        ll = LinearLayout(bases, {f"dim{d}": s for d, s in enumerate(shape)})
        if not surjective or ll.is_surjective():
            return ll


def brute_apply(ll: LinearLayout, indices: dict) -> tuple:
    """XOR of the bases of the set bits, coordinate by coordinate."""
    out = [0] * len(ll.out_dims)
    for name, index in indices.items():
        for bit, basis in enumerate(ll.bases(name)):
            if index >> bit & 1:
                out = [a ^ b for a, b in zip(out, basis)]
    return tuple(out)


def all_inputs(ll: LinearLayout):
    for values in itertools.product(*(range(ll.in_size(n)) for n in ll.in_dims)):
        yield dict(zip(ll.in_dims, values))


DIMS = {"register": 3, "lane": 2, "warp": 2}


@pytest.mark.parametrize("seed", range(5))
def test_apply_and_table_are_xor_of_bases(seed):
    rng = random.Random(seed)
    ll = random_layout(rng, DIMS, (8, 16))
    table = ll.table()
    for x in all_inputs(ll):
        want = brute_apply(ll, x)
        assert ll.apply(**x) == want
        assert ll.apply(x["register"], x["lane"], x["warp"]) == want
        assert tuple(table[x["warp"], x["lane"], x["register"]]) == want


@pytest.mark.parametrize("seed", range(5))
def test_compose_is_function_composition(seed):
    rng = random.Random(seed)
    inner = random_layout(rng, DIMS, (4, 8))  # outputs dim0 (4), dim1 (8)
    outer = random_layout(rng, {"dim0": 2, "dim1": 3}, (16, 4))
    composed = outer.compose(inner)
    for x in all_inputs(inner):
        y = inner.apply(**x)
        assert composed.apply(**x) == outer.apply(dim0=y[0], dim1=y[1])


@pytest.mark.parametrize("seed", range(8))
def test_inverse_of_a_bijection(seed):
    rng = random.Random(seed)
    while True:
        ll = random_layout(rng, DIMS, (8, 16), zero_chance=0.0)
        if ll.is_injective() and ll.is_surjective():
            break
    inv = ll.invert()
    for x in all_inputs(ll):
        y = ll.apply(**x)
        assert inv.apply(dim0=y[0], dim1=y[1]) == (x["register"], x["lane"], x["warp"])


@pytest.mark.parametrize("seed", range(8))
def test_pseudo_inverse_is_a_right_inverse(seed):
    rng = random.Random(seed)
    ll = random_layout(rng, {"register": 4, "lane": 3, "warp": 2}, (8, 8), surjective=True)
    pinv = ll.pseudo_invert()
    for y in itertools.product(range(8), range(8)):
        x = pinv.apply(*y)
        assert ll.apply(*x) == y


def test_pseudo_inverse_prefers_registers_over_lanes():
    # lane 1 and register 1 hold the same column: the register is the preimage chosen
    ll = LinearLayout({"register": [(0, 1)], "lane": [(0, 1), (1, 0)]}, {"dim0": 2, "dim1": 2})
    assert ll.pseudo_invert().apply(0, 1) == (1, 0)
    with pytest.raises(ValueError, match="not invertible"):
        ll.invert()


@pytest.mark.parametrize("seed", range(8))
def test_invert_and_compose_finds_the_source_of_every_element(seed):
    rng = random.Random(seed)
    src = random_layout(rng, {"register": 4, "lane": 3, "warp": 2}, (8, 8), surjective=True)
    dst = random_layout(rng, {"register": 3, "lane": 3, "warp": 2}, (8, 8))
    c = dst.invert_and_compose(src)
    for x in all_inputs(dst):
        assert src.apply(*c.apply(**x)) == dst.apply(**x)


def test_invert_and_compose_rejects_unreachable_elements():
    src = LinearLayout({"register": [(1, 0)]}, {"dim0": 2, "dim1": 2})
    dst = LinearLayout({"register": [(0, 1)]}, {"dim0": 2, "dim1": 2})
    with pytest.raises(ValueError, match="not reached"):
        dst.invert_and_compose(src)


def test_product_places_the_second_layout_above_the_first():
    a = LinearLayout({"register": [(1,)], "lane": [(2,)]}, {"dim0": 4})
    b = LinearLayout({"register": [(1, 0)], "warp": [(0, 1)]}, {"dim0": 2, "dim1": 2})
    p = a.product(b)
    assert p.out_dims == ("dim0", "dim1") and p.out_shape == (8, 2)
    for r, lane, w in itertools.product(range(4), range(2), range(2)):
        lo = a.apply(register=r & 1, lane=lane)
        hi = b.apply(register=r >> 1, warp=w)
        assert p.apply(register=r, lane=lane, warp=w) == (lo[0] + 4 * hi[0], hi[1])


def test_equality_hash_and_queries():
    bases = {"register": [(0, 1), (0, 2), (0, 0), (4, 0)], "lane": [(1, 0), (0, 0)]}
    a = LinearLayout(bases, {"dim0": 8, "dim1": 4})
    b = LinearLayout(dict(bases), {"dim0": 8, "dim1": 4})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != a.remove_zero_bases("register")
    assert a.broadcast_bits("register") == 0b0100 and a.broadcast_bits("lane") == 0b10
    assert a.free_bits("register") == 0b0100 and a.free_bits("lane") == 0b10
    assert a.num_contiguous("dim1") == 4 and a.num_contiguous("dim0") == 1
    assert a.remove_zero_bases("register").in_size("register") == 8
    dup = LinearLayout({"register": [(1,), (2,), (3,)]}, {"dim0": 4})
    assert dup.free_bits("register") == 0b100 and dup.broadcast_bits("register") == 0


def test_transpose_outs_swaps_coordinates():
    rng = random.Random(3)
    ll = random_layout(rng, DIMS, (4, 16))
    t = ll.transpose_outs((1, 0))
    assert t.out_shape == (16, 4)
    for x in all_inputs(ll):
        assert t.apply(**x) == ll.apply(**x)[::-1]


def test_bad_layouts_are_refused():
    with pytest.raises(ValueError, match="power of two"):
        LinearLayout({"register": []}, {"dim0": 6})
    with pytest.raises(ValueError, match="outside dim0"):
        LinearLayout({"register": [(8,)]}, {"dim0": 8})
    with pytest.raises(ValueError, match="2 coordinates"):
        LinearLayout({"register": [(1,)]}, {"dim0": 8, "dim1": 2})


def test_table_is_consistent_with_numpy_xor():
    rng = random.Random(11)
    ll = random_layout(rng, DIMS, (16, 8))
    table = ll.table().reshape(-1, 2)
    cols = np.array([ll.bases("register")[i] for i in range(3)] +
                    [ll.bases("lane")[i] for i in range(2)] +
                    [ll.bases("warp")[i] for i in range(2)])
    for flat in range(1 << 7):
        want = np.zeros(2, dtype=np.int64)
        for bit in range(7):
            if flat >> bit & 1:
                want ^= cols[bit]
        assert (table[flat] == want).all()


def test_identity_product_builds_a_row_major_index():
    """identity(dim1) x identity(dim0), flattened by composition, is the row-major index."""
    rows = LinearLayout.identity("r", 4, "dim0")
    cols = LinearLayout.identity("c", 8, "dim1")
    grid = cols.product(rows)
    assert grid.out_dims == ("dim1", "dim0") and grid.is_injective() and grid.is_surjective()
    for r, c in itertools.product(range(4), range(8)):
        assert grid.apply(c=c, r=r) == (c, r)
    assert grid.invert().apply(dim1=5, dim0=3) == (5, 3)
