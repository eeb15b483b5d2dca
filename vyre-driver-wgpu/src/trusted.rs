//! Trusted modules: vyre's lowered modules compiled without wgpu's runtime bounds checks, because
//! vyre's own lowering already keeps every access inside its buffer.
//!
//! **What wgpu adds.** `Device::create_shader_module` has naga wrap accesses in checks of its own:
//! on Vulkan every index into a fixed-size array, vector or matrix is clamped (`Restrict`), and
//! storage buffer accesses are clamped too unless the device has `robustBufferAccess2`; Metal and
//! DX12 are alike. Workgroup arrays get a `min` on every index. vyre guards every access itself
//! (`SEMANTICS.md` section 3 defines out-of-bounds results that a clamp would not give), so naga's
//! checks are pure cost on top: a cooperative-matrix GEMM staged through workgroup memory ran at
//! 139-172 TFLOP/s with them and 248-269 without (hand-written WGSL, NVIDIA H200).
//! `Device::create_shader_module_trusted` with [`checks`] turns off exactly those bounds checks
//! (`ShaderRuntimeChecks::bounds_checks`) and keeps the rest on:
//!
//! - `force_loop_bounding` stays on. vyre puts no bound on iterations (`SEMANTICS.md`, "Iteration
//!   bound policy"): a valid program may loop forever, and the strong compare-exchange retries in a
//!   loop. A loop with no side effect that never ends is undefined in the compilers under Vulkan and
//!   Metal, which may then assume it ends and drop code on that assumption, the guards included.
//! - `int_div_checks` stays on: the law's `x / 0 = x` and `MIN / -1 = MIN` are naga's guards.
//! - The ray-query and mesh-shader checks concern constructs vyre never emits; they stay on, free.
//!
//! **The proof obligation.** A module may be trusted only when no access of it, in any dispatch,
//! reaches outside the memory it names: every index of a storage, uniform or workgroup array lies
//! below the elements its binding or declaration holds, and every dynamic index into a vector
//! below its size. The lowering meets it, access class by access class:
//!
//! 1. **Program buffers** (storage, uniform, workgroup; loads, stores, atomics, in every launch
//!    form) go through `lower::access`'s `address`: the index (an `i32` reinterpreted as `u32`, so
//!    a negative one is huge) is compared with the buffer's length for this dispatch or item, and
//!    the slot used is `select(index, 0, !in_bounds)` plus the item's offset; stores and atomics run
//!    only in bounds, a load's out-of-bounds value is replaced by zero. The accesses
//!    `lower::analysis::bounds` proves in bounds skip the comparison; each proof there shows the
//!    index below that same length in every dispatch. So an access touches element `offset + i`
//!    with `i < length`, or `offset + 0`.
//! 2. **Those lengths fit the bindings.** Every length is at least 1 (validation requires counts of
//!    outputs, uniform and workgroup buffers; `plan_dispatch` and `plan_resident` reject empty
//!    runtime-sized buffers), and every launch binds program buffer `j` with at least `offset +
//!    length` elements (`launch::job`'s `binding_bytes` from the same plan that writes `params`;
//!    coalesced items laid end to end by `engine::layout`, whose offsets are the running totals;
//!    packed items `k * length` with `k` below the item count; a split piece bound from its first
//!    `gid.x`, which is at least the index's base, to its last or the buffer's end). Workgroup and
//!    uniform arrays are declared with `count` elements and `ceil(count / 4)` rows, and wgpu
//!    refuses a uniform binding smaller than the declared rows.
//! 3. **Rows.** A vectorised module's full rows are in bounds by its full-row test (`lower::vector`,
//!    "Full rows"); a row load of `lower::rows` clamps its row to `(length - 1) >> 2` (length at
//!    least 1), and both bind whole 16-byte multiples: at least `ceil(length / 4)` rows of 16 bytes
//!    (32-bit elements) or of 8 (`f16`). A workgroup row buffer (`lower::rows`, "Workgroup
//!    rows") declares `count / 4` rows of a count that is a multiple of 4: its loads clamp the row
//!    the same way, its aligned stores use row `b >> 2` only under `b + c < count` (row 0
//!    otherwise), and its other accesses take row `i >> 2` of the guarded element `i < count`.
//! 4. **vyre's own buffers.** `params` is read at literal indices below `8 + buffers`, and every
//!    launch binds the `params_words` of its plan, which are exactly that long. The `items` table
//!    is read at `(item * buffers + j) * 2` and the next word, with `item` below the launch's item
//!    count (the grid folding keeps every linear workgroup index below 2^32, so the prologue's
//!    surplus test does not wrap), and the table holds two words per item and buffer.
//! 5. **Values, not memory.** Builtins and vector rows are read at literal lanes (naga's validator
//!    checks those); the one dynamic vector index, a ballot's word `lane >> 5`, is below 4 because
//!    a subgroup has at most 128 lanes.
//! 6. **Private arrays** (`lower::array`): each is a function-local `array<T, n>`; a load compares
//!    its index with `n` and reads element `select(index, 0, !in_bounds)` (replacing the value by
//!    zero out of bounds), a store runs only in bounds, unless `lower::analysis::bounds` proves the
//!    index below `n` (`Bounds::proven_below`) in every trip. The division loops of
//!    `lower::soft_division` touch only scalar locals.
//! 7. **Matrix tiles** (`lower::tile`): a cooperative load or store reads or writes the elements
//!    `offset + position(r, c, stride)` of one storage or workgroup buffer, and runs only under a
//!    guard that proves the largest of them below the buffer's length for this dispatch or item
//!    (computed without wrapping); the pointer itself is formed inside the guarded block, plus the
//!    item's offset as in 1. The tiles themselves are function-local values.
//!
//! The tests check it where it runs: `tests/trusted.rs` runs out-of-bounds loads, stores and
//! atomics (huge and negative indices, workgroup and uniform arrays) with canary words around them
//! and compares with the reference; the conformance suite, the catalogue and the fuzzer run with
//! trusted modules, the default. A deliberately wrong lowering (`lower::planted`, tests only) may
//! break the obligation, so modules are never trusted while one is planted. Patch shaders and other
//! hand-written WGSL are not vyre's lowering and keep wgpu's checks.
//!
//! [`AdapterOptions::with_trusted_modules`](crate::AdapterOptions::with_trusted_modules) or
//! `VYRE_TRUSTED_MODULES=off` ([`TRUSTED_MODULES_ENV`]) keeps wgpu's checks everywhere; the choice
//! is part of the pipeline cache key and of the disk cache header.

use std::borrow::Cow;

use vyre_driver::BackendError;

/// The environment variable that decides whether vyre's modules run without wgpu's bounds checks
/// when the options leave it open: `on` (the default) or `off`.
///
/// ```
/// assert_eq!(vyre_driver_wgpu::TRUSTED_MODULES_ENV, "VYRE_TRUSTED_MODULES");
/// ```
pub const TRUSTED_MODULES_ENV: &str = "VYRE_TRUSTED_MODULES";

/// Whether modules are trusted: the options' choice, else [`TRUSTED_MODULES_ENV`], else on.
///
/// # Errors
///
/// [`BackendError::InvalidConfig`] for a `VYRE_TRUSTED_MODULES` that is neither `on` nor `off`.
pub(crate) fn in_force(chosen: Option<bool>) -> Result<bool, BackendError> {
    match chosen {
        Some(on) => Ok(on),
        None => match std::env::var(TRUSTED_MODULES_ENV) {
            Err(_) => Ok(true),
            Ok(text) => parse_switch(&text),
        },
    }
}

/// `on` or `off` (case-insensitive, surrounding space ignored).
fn parse_switch(text: &str) -> Result<bool, BackendError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(BackendError::invalid_config(format!(
            "{TRUSTED_MODULES_ENV}={other:?} is neither `on` nor `off`. Fix: set {TRUSTED_MODULES_ENV}=on (vyre's guards alone, the default) or {TRUSTED_MODULES_ENV}=off (wgpu's bounds checks as well), or unset it."
        ))),
    }
}

/// The runtime checks of a trusted module: every check wgpu has except the bounds checks (the
/// module docs say why each is kept).
#[must_use]
pub(crate) fn checks() -> wgpu::ShaderRuntimeChecks {
    wgpu::ShaderRuntimeChecks {
        bounds_checks: false,
        ..wgpu::ShaderRuntimeChecks::checked()
    }
}

/// Whether a module lowered now may be trusted on a device whose choice is `on`: never while a
/// deliberately wrong lowering is planted.
pub(crate) fn applies(on: bool) -> bool {
    on && !crate::lower::any_planted()
}

/// Creates the shader module of `module`, a module `lower::lower` made: without wgpu's bounds
/// checks when `trusted` (see [`applies`]), else with every check.
pub(crate) fn create_module(
    device: &wgpu::Device,
    module: naga::Module,
    trusted: bool,
) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some("vyre"),
        source: wgpu::ShaderSource::Naga(Cow::Owned(module)),
    };
    if !trusted {
        return device.create_shader_module(desc);
    }
    #[allow(unsafe_code)]
    // SAFETY: wgpu asks that a module created without bounds checks never index out of bounds.
    // `module` is what `lower::lower` made of a validated program, with no miscompile planted
    // (`applies`), and every access of such a module lies inside the array it names in every
    // dispatch vyre makes of it: program buffers through `lower::access`'s guards or
    // `lower::analysis::bounds`' proofs against lengths every launch binds at least that many
    // elements for, rows by `lower::vector`'s full-row test and `lower::rows`' clamp, `params` and
    // `items` at indices their launch writes, vectors at lanes below their size. The module docs
    // give the proof class by class. The other checks stay on (`checks`).
    unsafe {
        device.create_shader_module_trusted(desc, checks())
    }
}

#[cfg(test)]
mod tests {
    use super::{checks, parse_switch};

    #[test]
    fn a_trusted_module_drops_only_the_bounds_checks() {
        let c = checks();
        assert!(!c.bounds_checks);
        assert!(c.force_loop_bounding, "vyre's loops may not end");
        assert!(
            c.int_div_checks,
            "the law's division by zero is naga's guard"
        );
        assert!(c.ray_query_initialization_tracking);
        assert!(c.task_shader_dispatch_tracking);
        assert!(c.mesh_shader_primitive_indices_clamp);
    }

    #[test]
    fn the_switch_reads_on_and_off_and_rejects_the_rest_with_a_fix() {
        assert!(parse_switch(" ON ").expect("on"));
        assert!(!parse_switch("off").expect("off"));
        let e = parse_switch("maybe").expect_err("neither");
        assert!(e.to_string().contains("Fix:"), "{e}");
    }
}
