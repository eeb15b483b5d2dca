//! The hand-written WGSL SGEMM of the `gemm` workload, in the tiling of `tiling.rs`, and its
//! variants: each [`Variant`] changes one way of accessing memory, so that the cost of each thing
//! vyre's emitted module does differently can be measured on its own.
//!
//! The best form ([`Variant::RAW`]): `A` and `B` read as `vec4` from storage (one load per four
//! elements), workgroup tiles of `vec4` (a fragment of four rows or columns is one workgroup read),
//! `vec4` accumulators updated with `vec4` `fma`s, `C` written as `vec4`. Shapes are literals (one
//! module per shape, as vyre's program is built per shape). The register block is unrolled here,
//! the loop over the tile's depth is a WGSL loop, as in vyre's program.

use super::tiling::{Shape, Tiling};

/// Element width of the workgroup tiles (and of the accumulators, which follow them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tiles {
    /// `array<vec4<f32>>` tiles, `vec4` accumulators.
    Vec4,
    /// `array<vec4<f32>>` tiles read one element at a time, each by a whole `vec4` load of its
    /// own and a lane, into scalar accumulators: what a lowering that declared vyre's tiles as
    /// `vec4` rows would emit if it shared a row only within one statement (`lower/rows.rs`),
    /// since each fragment element is a `let` of its own.
    Vec4Lanes,
    /// `array<f32>` tiles, scalar accumulators: what vyre can express.
    Scalar,
    /// [`Tiles::Scalar`]'s accesses, element by element, to tiles declared as `array<vec4<f32>>`:
    /// element `i` is `t[i >> 2][i & 3]`, a load or a lane store (what a lowering that declares a
    /// workgroup buffer as rows emits for any index, with no alignment proof).
    Vec4Rows,
}

/// How `A`, `B` and `C` are accessed in storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// One `vec4` load per four elements of `A` and `B`, `vec4` stores of `C`, no guards.
    Vec4,
    /// As vyre's module does it: each element of `A` and `B` loads its `vec4` row again (index
    /// clamped by `min`) and takes its lane under a `select` on its bounds check; `C` is stored one
    /// element at a time, each store under an `if` on its bounds check with a `select`ed index.
    AsVyre,
}

/// One raw kernel: the best form, or it with some of vyre's ways of accessing memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Variant {
    pub(crate) tiles: Tiles,
    /// vyre's guard on every workgroup access: a load is `select(0, t[select(0, i, i < len)], i <
    /// len)`, a store is `if (i < len) { t[select(0, i, i < len)] = v; }`.
    pub(crate) tile_guards: bool,
    pub(crate) storage: Storage,
}

impl Variant {
    /// The best hand-written form.
    pub(crate) const RAW: Variant = Variant {
        tiles: Tiles::Vec4,
        tile_guards: false,
        storage: Storage::Vec4,
    };

    /// [`Variant::RAW`] with scalar workgroup tiles and accumulators.
    pub(crate) const SCALAR: Variant = Variant {
        tiles: Tiles::Scalar,
        ..Variant::RAW
    };

    /// [`Variant::RAW`] with its `vec4` tiles read one element at a time ([`Tiles::Vec4Lanes`]).
    pub(crate) const LANES: Variant = Variant {
        tiles: Tiles::Vec4Lanes,
        ..Variant::RAW
    };

    /// [`Variant::SCALAR`] with its tiles declared as `vec4` rows ([`Tiles::Vec4Rows`]).
    pub(crate) const ROWS: Variant = Variant {
        tiles: Tiles::Vec4Rows,
        ..Variant::RAW
    };
}

/// `index < len` as a WGSL bool expression's text, and the guarded forms around it.
struct Guarded {
    on: bool,
    /// The array is declared as `vec4` rows and indexed by element ([`Tiles::Vec4Rows`]).
    rows: bool,
}

impl Guarded {
    /// A load of `array[index]` (`len` elements), `zero` out of bounds.
    fn load(&self, array: &str, index: &str, len: u32, zero: &str) -> String {
        if self.on {
            let at = self.at(array, &format!("select(0u, {index}, ({index}) < {len}u)"));
            format!("select({zero}, {at}, ({index}) < {len}u)")
        } else {
            self.at(array, index)
        }
    }

    /// `array`'s element `index`, by element or by row and lane.
    fn at(&self, array: &str, index: &str) -> String {
        if self.rows {
            format!("{array}[({index}) >> 2u][({index}) & 3u]")
        } else {
            format!("{array}[{index}]")
        }
    }

    /// A store of `value` to `array[index]` (`len` elements), dropped out of bounds.
    fn store(&self, array: &str, index: &str, len: u32, value: &str) -> String {
        if self.on {
            let at = self.at(array, &format!("select(0u, {index}, ({index}) < {len}u)"));
            format!("if (({index}) < {len}u) {{ {at} = {value}; }}")
        } else {
            format!("{} = {value};", self.at(array, index))
        }
    }
}

/// Four consecutive elements of `buffer` (`len` elements) from element `src` (a multiple of 4), as
/// the statements that bind them to `{name}0..{name}3` (or `{name}` as one `vec4`).
fn load4(buffer: &str, src: &str, len: u32, storage: Storage, name: &str) -> String {
    match storage {
        Storage::Vec4 => format!("let {name} = {buffer}[({src}) >> 2u];\n"),
        Storage::AsVyre => {
            let mut out = String::new();
            for (c, lane) in ["x", "y", "z", "w"].iter().enumerate() {
                out.push_str(&format!(
                    "let {name}{c} = select(0f, {buffer}[min(({src}) >> 2u, {last}u)].{lane}, (({src}) + {c}u) < {len}u);\n",
                    last = (len - 1) >> 2
                ));
            }
            out
        }
    }
}

/// Lane `c` of what [`load4`] bound to `name`.
fn lane(name: &str, c: u32, storage: Storage) -> String {
    match storage {
        Storage::Vec4 => format!("{name}[{c}]"),
        Storage::AsVyre => format!("{name}{c}"),
    }
}

/// The WGSL of `variant` for `shape` in tiling `t`, run over the grid `[n / bn, m / bm, 1]`.
pub(crate) fn gemm_wgsl(shape: Shape, t: Tiling, variant: Variant) -> String {
    let Shape { m, n, k } = shape;
    let Tiling { bm, bn, bk, tm, tn } = t;
    let g = Guarded {
        on: variant.tile_guards,
        rows: variant.tiles == Tiles::Vec4Rows,
    };
    // Vec4Rows declares `vec4` tiles but indexes them by element, as Scalar does.
    let vec4_tiles = matches!(variant.tiles, Tiles::Vec4 | Tiles::Vec4Lanes);
    let vec4_regs = variant.tiles == Tiles::Vec4;
    let (a_len, b_len) = if vec4_tiles {
        (bm * bk / 4, bn * bk / 4)
    } else {
        (bm * bk, bn * bk)
    };
    // Every form but Scalar declares `vec4` tiles; Vec4Rows, indexed by element, declares its
    // scalar lengths as rows of four.
    let tile_ty = if variant.tiles == Tiles::Scalar {
        "f32"
    } else {
        "vec4<f32>"
    };
    let (a_rows, b_rows) = if variant.tiles == Tiles::Vec4Rows {
        (a_len / 4, b_len / 4)
    } else {
        (a_len, b_len)
    };
    let c_ty = match variant.storage {
        Storage::Vec4 => "vec4<f32>",
        Storage::AsVyre => "f32",
    };
    let mut s = format!(
        "@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<{c_ty}>;
var<workgroup> as_: array<{tile_ty}, {a_rows}>;
var<workgroup> bs: array<{tile_ty}, {b_rows}>;

@compute @workgroup_size({threads})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
    let tx = tid % {across}u;
    let ty = tid / {across}u;
    let row0 = wid.y * {bm}u;
    let col0 = wid.x * {bn}u;
",
        threads = t.threads(),
        across = t.across(),
    );
    // The accumulators: `c{i}_{q}` holds columns 4q..4q+4 of row i (vec4), or `c{i}_{j}` column j.
    for i in 0..tm {
        if vec4_regs {
            for q in 0..tn / 4 {
                s.push_str(&format!("    var c{i}_{q} = vec4<f32>(0f);\n"));
            }
        } else {
            for j in 0..tn {
                s.push_str(&format!("    var c{i}_{j} = 0f;\n"));
            }
        }
    }
    s.push_str(&format!(
        "    for (var s = 0u; s < {steps}u; s++) {{\n        let k0 = s * {bk}u;\n",
        steps = k / bk
    ));
    // The `A` tile, transposed: element (r, kk) of the tile to scalar slot kk * bm + r.
    let quads = bk / 4;
    for l in 0..t.a_loads() {
        s.push_str(&format!(
            "        {{\n            let e = tid + {off}u;\n            let r = e / {quads}u;\n            let q4 = (e % {quads}u) * 4u;\n",
            off = l * t.threads()
        ));
        s.push_str(&load4(
            "a",
            &format!("(row0 + r) * {k}u + k0 + q4"),
            m * k,
            variant.storage,
            "v",
        ));
        for c in 0..4 {
            let value = lane("v", c, variant.storage);
            let store = if vec4_tiles {
                // Slot (q4 + c) * bm + r is lane r % 4 of vec4 (q4 + c) * bm / 4 + r / 4.
                let index = format!("(q4 + {c}u) * {}u + r / 4u", bm / 4);
                let element = format!("as_[select(0u, {index}, ({index}) < {a_len}u)][r % 4u]");
                if g.on {
                    format!("if (({index}) < {a_len}u) {{ {element} = {value}; }}")
                } else {
                    format!("as_[{index}][r % 4u] = {value};")
                }
            } else {
                g.store("as_", &format!("(q4 + {c}u) * {bm}u + r"), a_len, &value)
            };
            s.push_str(&format!("            {store}\n"));
        }
        s.push_str("        }\n");
    }
    // The `B` tile as it is: element (kk, col) to scalar slot kk * bn + col.
    let row_quads = bn / 4;
    for l in 0..t.b_loads() {
        s.push_str(&format!(
            "        {{\n            let e = tid + {off}u;\n            let kr = e / {row_quads}u;\n            let q4 = (e % {row_quads}u) * 4u;\n",
            off = l * t.threads()
        ));
        s.push_str(&load4(
            "b",
            &format!("(k0 + kr) * {n}u + col0 + q4"),
            k * n,
            variant.storage,
            "v",
        ));
        if vec4_tiles {
            let value = match variant.storage {
                Storage::Vec4 => "v".to_string(),
                Storage::AsVyre => "vec4<f32>(v0, v1, v2, v3)".to_string(),
            };
            let store = g.store("bs", &format!("kr * {}u + q4 / 4u", bn / 4), b_len, &value);
            s.push_str(&format!("            {store}\n"));
        } else {
            for c in 0..4 {
                let value = lane("v", c, variant.storage);
                let store = g.store("bs", &format!("kr * {bn}u + q4 + {c}u"), b_len, &value);
                s.push_str(&format!("            {store}\n"));
            }
        }
        s.push_str("        }\n");
    }
    s.push_str(&format!(
        "        workgroupBarrier();\n        for (var kk = 0u; kk < {bk}u; kk++) {{\n"
    ));
    if vec4_regs {
        // Fragment vectors: rows 4p..4p+4 of the block are vec4 p*(bm/tm) + ty of the tile's row
        // kk, columns likewise.
        for p in 0..tm / 4 {
            let index = format!("kk * {}u + {}u + ty", bm / 4, p * (bm / tm));
            let load = g.load("as_", &index, a_len, "vec4<f32>(0f)");
            s.push_str(&format!("            let a{p} = {load};\n"));
        }
        for q in 0..tn / 4 {
            let index = format!("kk * {}u + {}u + tx", bn / 4, q * (bn / tn));
            let load = g.load("bs", &index, b_len, "vec4<f32>(0f)");
            s.push_str(&format!("            let b{q} = {load};\n"));
        }
        for i in 0..tm {
            let (p, r) = (i / 4, i % 4);
            for q in 0..tn / 4 {
                s.push_str(&format!(
                    "            c{i}_{q} = fma(vec4<f32>(a{p}[{r}]), b{q}, c{i}_{q});\n"
                ));
            }
        }
    } else if vec4_tiles {
        // Element i of the fragment is lane i % 4 of vec4 (i / 4) * (bm / tm) + ty, loaded whole
        // for that element alone.
        for i in 0..tm {
            let index = format!("kk * {}u + {}u + ty", bm / 4, (i / 4) * (bm / tm));
            let load = g.load("as_", &index, a_len, "vec4<f32>(0f)");
            s.push_str(&format!(
                "            let a{i}v = {load};\n            let a{i} = a{i}v[{}];\n",
                i % 4
            ));
        }
        for j in 0..tn {
            let index = format!("kk * {}u + {}u + tx", bn / 4, (j / 4) * (bn / tn));
            let load = g.load("bs", &index, b_len, "vec4<f32>(0f)");
            s.push_str(&format!(
                "            let b{j}v = {load};\n            let b{j} = b{j}v[{}];\n",
                j % 4
            ));
        }
        push_scalar_products(&mut s, tm, tn);
    } else {
        for i in 0..tm {
            let index = format!("kk * {bm}u + ty * 4u + {}u", t.row(i));
            let load = g.load("as_", &index, a_len, "0f");
            s.push_str(&format!("            let a{i} = {load};\n"));
        }
        for j in 0..tn {
            let index = format!("kk * {bn}u + tx * 4u + {}u", t.col(j));
            let load = g.load("bs", &index, b_len, "0f");
            s.push_str(&format!("            let b{j} = {load};\n"));
        }
        push_scalar_products(&mut s, tm, tn);
    }
    s.push_str("        }\n        workgroupBarrier();\n    }\n");
    // `C`: row i of the block, columns 4q..4q+4.
    for i in 0..tm {
        for q in 0..tn / 4 {
            let at = format!(
                "(row0 + ty * 4u + {row}u) * {n}u + col0 + tx * 4u + {col}u",
                row = t.row(i),
                col = t.col(q * 4)
            );
            let value = |j: u32| {
                if vec4_regs {
                    format!("c{i}_{q}[{j}]")
                } else {
                    format!("c{i}_{}", q * 4 + j)
                }
            };
            match variant.storage {
                Storage::Vec4 => {
                    let v = if vec4_regs {
                        format!("c{i}_{q}")
                    } else {
                        let lanes: Vec<String> = (0..4).map(value).collect();
                        format!("vec4<f32>({})", lanes.join(", "))
                    };
                    s.push_str(&format!("    c[({at}) >> 2u] = {v};\n"));
                }
                Storage::AsVyre => {
                    for j in 0..4 {
                        let store = Guarded {
                            on: true,
                            rows: false,
                        }
                        .store(
                            "c",
                            &format!("{at} + {j}u"),
                            m * n,
                            &value(j),
                        );
                        s.push_str(&format!("    {store}\n"));
                    }
                }
            }
        }
    }
    s.push_str("}\n");
    s
}

/// The scalar block's products for one `k`: `c{i}_{j} = fma(a{i}, b{j}, c{i}_{j})`.
fn push_scalar_products(s: &mut String, tm: u32, tn: u32) {
    for i in 0..tm {
        for j in 0..tn {
            s.push_str(&format!(
                "            c{i}_{j} = fma(a{i}, b{j}, c{i}_{j});\n"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant of both built-in tilings is WGSL that naga accepts.
    #[test]
    fn every_variant_parses_and_validates() {
        let shape = Shape {
            m: 256,
            n: 256,
            k: 256,
        };
        for t in [Tiling::DEFAULT, Tiling::SMALL] {
            for tiles in [
                Tiles::Vec4,
                Tiles::Vec4Lanes,
                Tiles::Scalar,
                Tiles::Vec4Rows,
            ] {
                for tile_guards in [false, true] {
                    for storage in [Storage::Vec4, Storage::AsVyre] {
                        let v = Variant {
                            tiles,
                            tile_guards,
                            storage,
                        };
                        let text = gemm_wgsl(shape, t, v);
                        let module =
                            wgpu::naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| {
                                panic!("{v:?}: {}\n{text}", e.emit_to_string(&text))
                            });
                        wgpu::naga::valid::Validator::new(
                            wgpu::naga::valid::ValidationFlags::all(),
                            wgpu::naga::valid::Capabilities::empty(),
                        )
                        .validate(&module)
                        .unwrap_or_else(|e| panic!("{v:?}: {e:?}\n{text}"));
                    }
                }
            }
        }
    }
}
