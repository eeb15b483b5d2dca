//! Lowering: a validated `Program` to a `naga::Module`, built directly (no WGSL text).
//!
//! Every rule of `SEMANTICS.md` is explicit in the module: bounds guards on every access, the
//! division and conversion rules, masked shifts, strong compare-exchange. The module is checked with
//! naga's validator; its uniformity analysis is off because it treats every function-local variable as
//! non-uniform (and so would reject barriers in our counted loops), while vyre's own validator already
//! proved every barrier uniform.
//!
//! Besides the program's buffers (`@group(0)`, at their declared bindings) every module has vyre's
//! internal bindings in `@group(1)`: `params` (binding 0), a read-only `array<u32>` holding the virtual
//! grid (`[0..3]`), the item count (`[3]`) and each buffer's element count (`[8 + j]`); and, for
//! coalesced modules, `items` (binding 1): per item `k` and buffer `j`, the element offset and count of
//! the item's slice at `(k * buffers + j) * 2`. Packed coalesced modules (equal items) have no `items`
//! table: item `k`'s slice of buffer `j` starts at `k * params[8 + j]`, and `params[4]` is the number
//! of invocations each item runs.

mod access;
mod barrier;
mod bounds;
mod coverage;
mod elementwise;
mod func;
mod globals;
mod lowerer;
mod node;
mod packed;
mod params;
mod planted;
mod prologue;
mod rows;
mod subgroup;
mod vector;
mod workaround;

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{Binding, BuiltIn, EntryPoint, Function, FunctionArgument, ShaderStage};
use vyre_driver::BackendError;
use vyre_foundation::ir::Features;
use vyre_foundation::validate::Validated;

use crate::workarounds::Workarounds;

pub(crate) use coverage::{covers, fully_written_outputs};
pub(crate) use elementwise::elementwise;
pub(crate) use packed::packed_stores;
pub(crate) use params::{ITEM_ROW_WORDS, plan_params, split_params};
pub use planted::Miscompile;
#[cfg(feature = "planted-miscompiles")]
pub use planted::plant_miscompile;
pub(crate) use planted::planted;
pub(crate) use rows::row_buffers;
pub(crate) use vector::{VectorPlan, WIDTH as VECTOR_WIDTH, plan as vector_plan};

/// The version of what the lowering emits, part of the disk pipeline cache's key (`disk`): bump it
/// whenever a change to the lowering changes the code emitted for some program, so that caches
/// written by an older lowering are not trusted by a newer one.
pub(crate) const LOWERING_VERSION: u32 = 7;

/// How to lower a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct LowerOptions {
    /// Many work items in one launch, each with its own slices (see the module docs).
    pub(crate) coalesced: bool,
    /// The physical grid is the virtual one: builtins come straight from the hardware.
    pub(crate) direct: bool,
    /// Coalesced items of equal lengths, laid end to end invocation by invocation: only each item's
    /// first `params[4]` invocations run (see `packed`). Needs `coalesced`; no `items` table.
    pub(crate) packed: bool,
    /// One piece of an elementwise dispatch split over several launches (see `elementwise`): the
    /// launch runs workgroups `params[5]..` along x of a grid `params[6]` wide, and every storage
    /// buffer is bound from element `params[5] * workgroup_size.x` on. Needs neither `direct` nor
    /// `coalesced`.
    pub(crate) split: bool,
    /// Four virtual invocations along x per invocation, with `vec4` rows (see `vector`): a plain
    /// launch of a one-dimensional grid of a program that qualifies. With `direct`, the physical
    /// grid is `[ceil(grid.x / 4), 1, 1]`; otherwise those workgroups folded into y and z.
    pub(crate) vectorised: bool,
    /// A plain launch (scalar or vectorised, direct or folded) that declares the program's row
    /// buffers as `vec4` rows and reads four elements with one load (see `rows`): for a program
    /// with such a buffer, when every row binding can span whole 16-byte rows.
    pub(crate) rows: bool,
}

/// How one program buffer is bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BindingKind {
    StorageReadOnly,
    StorageReadWrite,
    Uniform,
}

/// One bound program buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LoweredBinding {
    pub(crate) buffer_index: usize,
    pub(crate) binding: u32,
    pub(crate) kind: BindingKind,
    /// The bytes of one element: 2 (`f16`), 4 or 8 (`u64`, `i64`).
    pub(crate) element_bytes: u64,
    /// Declared as `vec4` rows (a vectorised module): the binding must span whole 16-byte rows.
    pub(crate) rows: bool,
}

/// A lowered, validated module.
pub(crate) struct Lowered {
    pub(crate) module: naga::Module,
    pub(crate) bindings: Vec<LoweredBinding>,
    pub(crate) workgroup_bytes: u64,
    /// The module reads vyre's `params` (or `items`): its launches bind group 1.
    pub(crate) uses_params: bool,
}

/// The entry point's name.
pub(crate) const ENTRY: &str = "main";

/// The second entry point of a vectorised module: the rows the grid or a buffer ends inside (see
/// `vector`).
pub(crate) const TAIL_ENTRY: &str = "vyre_tail";

/// Lowers a validated program: every name comes resolved from its evidence.
pub(crate) fn lower(
    evidence: &Validated<'_>,
    options: &LowerOptions,
    workarounds: Workarounds,
) -> Result<Lowered, BackendError> {
    let program = evidence.program();
    if options.split && (options.direct || options.coalesced) {
        return Err(BackendError::compile(
            "a split launch was asked of a direct or coalesced module. Fix: report this vyre bug with the program text.",
        ));
    }
    if options.coalesced
        && let Some(wide) = program.buffers.iter().find(|b| !b.element.is_word())
    {
        return Err(BackendError::unsupported(format!(
            "buffer `{}` has {} elements; coalesced launches (`dispatch_coalesced`, `run_persistent_kernel`) lay items out in 32-bit words only. Fix: dispatch programs with f16, u64 or i64 buffers one at a time (`dispatch`).",
            wide.name, wide.element
        )));
    }
    let mut module = naga::Module::default();
    let types = globals::Types::new(&mut module, evidence.features());
    let vector = if options.vectorised {
        if options.coalesced || options.packed {
            return Err(BackendError::compile(
                "a vectorised module was asked for a coalesced launch. Fix: this is a vyre bug; report it with the program text (Display).",
            ));
        }
        Some(vector::plan(evidence).ok_or_else(|| {
            BackendError::compile(
                "a vectorised module was asked for a program that does not qualify. Fix: this is a vyre bug; report it with the program text (Display).",
            )
        })?)
    } else {
        None
    };
    let row_buffers = if options.rows {
        if options.coalesced || options.packed || options.split {
            return Err(BackendError::compile(
                "row loads were asked of a coalesced or split module. Fix: this is a vyre bug; report it with the program text (Display).",
            ));
        }
        rows::row_buffers(evidence).ok_or_else(|| {
            BackendError::compile(
                "row loads were asked for a program with no row buffer. Fix: this is a vyre bug; report it with the program text (Display).",
            )
        })?
    } else {
        Vec::new()
    };
    // Row buffers are never vectorised buffers: those are accessed at `gid.x` alone, which is not
    // a multiple of 4 (`rows`).
    let vectorised: Vec<bool> = (0..program.buffers.len())
        .map(|j| {
            vector.as_ref().is_some_and(|p| p.vectorised[j])
                || row_buffers.get(j).copied().unwrap_or(false)
        })
        .collect();
    let (buffers, bindings, workgroup_bytes) =
        globals::declare_buffers(&mut module, evidence, options, &vectorised)?;
    let params = globals::declare_internal(&mut module, &types, "vyre_params", 0);
    let items = (options.coalesced && !options.packed)
        .then(|| globals::declare_internal(&mut module, &types, "vyre_items", 1));

    // A vectorised module has two entry points: `main` runs the full rows and `vyre_tail` the
    // rows the grid or a buffer ends inside, launched second and only when there are such rows
    // (see `vector`), so the full rows' pipeline carries no code for the partial ones.
    let parts: &[(&str, Part)] = if vector.is_some() {
        &[(ENTRY, Part::Full), (TAIL_ENTRY, Part::Tail)]
    } else {
        &[(ENTRY, Part::Whole)]
    };
    let globals = Globals {
        buffers,
        params,
        items,
        types,
        rows: row_buffers,
        workarounds,
        opaque_zero: workaround::needs_opaque_zero(evidence, workarounds),
    };
    for &(name, part) in parts {
        let entry = entry_point(
            evidence,
            options,
            &mut module,
            &globals,
            vector.as_ref(),
            name,
            part,
        )?;
        module.entry_points.push(entry);
    }
    let info = validate_module(&module)?;
    drop_unused_names(&mut module, &info);
    // A module that reads nothing of `params` (a direct one whose lengths are all declared) is
    // launched without vyre's bind group: compacting drops the unused global, and the pipeline
    // then has group 0 alone. (Compacting keeps a valid module valid; `to_wgsl` validates what it
    // writes again, and wgpu validates what it compiles.)
    let uses_params = items.is_some()
        || (0..module.entry_points.len()).any(|i| !info.get_entry_point(i)[params].is_empty());
    if !uses_params {
        naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    }
    Ok(Lowered {
        module,
        bindings,
        workgroup_bytes,
        uses_params,
    })
}

/// Which part of the program an entry point runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The whole program (every module but the vectorised one).
    Whole,
    /// A vectorised module's full rows.
    Full,
    /// A vectorised module's partial rows.
    Tail,
}

/// What every entry point of one module shares: the globals and the types.
struct Globals {
    buffers: Vec<globals::BufferGlobal>,
    params: naga::Handle<naga::GlobalVariable>,
    items: Option<naga::Handle<naga::GlobalVariable>>,
    types: globals::Types,
    rows: Vec<bool>,
    /// The driver workarounds in force, and whether they need the opaque zero.
    workarounds: Workarounds,
    opaque_zero: bool,
}

/// The entry point `name`, running `part` of the program.
fn entry_point(
    evidence: &Validated<'_>,
    options: &LowerOptions,
    module: &mut naga::Module,
    shared: &Globals,
    vector: Option<&vector::VectorPlan>,
    name: &str,
    part: Part,
) -> Result<EntryPoint, BackendError> {
    let program = evidence.program();
    let types = shared.types;
    let mut function = Function {
        name: Some(name.to_owned()),
        ..Function::default()
    };
    for (name, builtin) in [
        ("vyre_workgroup_id", BuiltIn::WorkGroupId),
        ("vyre_local_id", BuiltIn::LocalInvocationId),
        ("vyre_num_workgroups", BuiltIn::NumWorkGroups),
    ] {
        function.arguments.push(FunctionArgument {
            name: Some(name.to_owned()),
            ty: types.vec3u,
            binding: Some(Binding::BuiltIn(builtin)),
        });
    }
    // Subgroup programs see the hardware's subgroups, so they only ever run in the launch forms
    // that keep each invocation's `local_invocation_index` (backend/form.rs never picks the others).
    let subgroups = evidence.features().contains(Features::SUBGROUPS);
    if subgroups && (options.vectorised || options.packed) {
        return Err(BackendError::compile(
            "a vectorised or packed module was asked for a program with subgroup operations. Fix: this is a vyre bug; report it with the program text (Display).",
        ));
    }
    if subgroups {
        // Only the size: the lane is computed from the local index (see `subgroup`), as naga
        // allows `subgroup_invocation_id` in one-dimensional workgroups only.
        function.arguments.push(FunctionArgument {
            name: Some("vyre_subgroup_size".to_owned()),
            ty: types.u32,
            binding: Some(Binding::BuiltIn(BuiltIn::SubgroupSize)),
        });
    }
    let mut fb = func::FunctionBuilder::new(function);
    let mut body = naga::Block::new();
    let inputs = prologue::PrologueInputs {
        program,
        options,
        params: shared.params,
        items: shared.items,
        opaque_zero: shared.opaque_zero,
    };
    let prologue = prologue::emit(&mut fb, &mut body, &inputs);
    let subgroup_size =
        subgroups.then(|| fb.expr(&mut body, naga::Expression::FunctionArgument(3)));
    // Outside coalesced modules every buffer has at least one element in every dispatch: fixed
    // counts are at least 1, and `plan_dispatch` rejects an empty runtime-sized input.
    let mut bounds = bounds::Bounds::new(
        prologue.fixed.clone(),
        !options.coalesced,
        program.workgroup_size,
    );
    if options.packed
        && let Some(n) = packed::packed_stores(evidence)
            .and_then(|stored| bounds::packed_gid_bound(program, &stored))
    {
        bounds.assume_gid_x_below(n);
    }
    let mut lowerer = lowerer::Lowerer {
        evidence,
        program,
        module,
        types,
        fb,
        globals: shared.buffers.clone(),
        prologue,
        locals: vec![None; evidence.vars().len()],
        barriers: barrier::BarrierScopes::of(program),
        bounds,
        lanes: None,
        row_loads: rows::RowLoads::new(shared.rows.clone()),
        subgroup: None,
        workarounds: shared.workarounds,
    };
    if let Some(size) = subgroup_size {
        lowerer.subgroup = Some(lowerer.subgroup_ids_from(&mut body, size));
    }
    match (vector, part) {
        (Some(plan), Part::Full) => lowerer.vector_full(&mut body, &program.body, plan)?,
        (Some(plan), Part::Tail) => lowerer.vector_tail(&mut body, &program.body, plan)?,
        (None, Part::Whole) => lowerer.body(&mut body, &program.body)?,
        _ => {
            return Err(BackendError::compile(
                "an entry point was asked for a part its module does not have. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            ));
        }
    }
    lowerer.fb.flush(&mut body);
    let mut function = lowerer.fb.function;
    function.body = body;
    Ok(EntryPoint {
        name: name.to_owned(),
        stage: ShaderStage::Compute,
        early_depth_test: None,
        workgroup_size: program.workgroup_size,
        workgroup_size_overrides: None,
        function,
        mesh_info: None,
        task_payload: None,
        incoming_ray_payload: None,
    })
}

/// Drops the names vyre gave its own values (`vyre_...`) where nothing uses the value, so the WGSL
/// text does not write them; names change nothing else in the module.
fn drop_unused_names(module: &mut naga::Module, info: &ModuleInfo) {
    for (i, entry) in module.entry_points.iter_mut().enumerate() {
        let uses = info.get_entry_point(i);
        entry
            .function
            .named_expressions
            .retain(|&h, name| !name.starts_with("vyre_") || uses[h].ref_count > 0);
    }
}

/// The naga capabilities a lowered module may use: those behind vyre's optional features. Whether
/// the device has them is checked before lowering (`vyre_driver::require_features`), so the
/// module is validated as any device with the features would take it.
const MODULE_CAPABILITIES: Capabilities = Capabilities::SUBGROUP
    .union(Capabilities::SHADER_FLOAT16)
    .union(Capabilities::SHADER_INT64)
    .union(Capabilities::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(Capabilities::SHADER_INT64_ATOMIC_ALL_OPS);

/// Checks a module with naga's validator (uniformity excepted, see the module docs).
pub(crate) fn validate_module(module: &naga::Module) -> Result<ModuleInfo, BackendError> {
    Validator::new(
        ValidationFlags::all() - ValidationFlags::CONTROL_FLOW_UNIFORMITY,
        MODULE_CAPABILITIES,
    )
    .validate(module)
    .map_err(|e| {
        // naga nests the cause (entry point, then function, then expression): name them all.
        let inner = e.into_inner();
        let mut what = inner.to_string();
        let mut source = std::error::Error::source(&inner);
        while let Some(cause) = source {
            what.push_str(": ");
            what.push_str(&cause.to_string());
            source = cause.source();
        }
        BackendError::compile(format!(
            "the lowered module failed naga validation: {what}. Fix: this is a vyre lowering bug; report it with the program text (Display) and `emit_wgsl` output."
        ))
    })
}

/// naga's WGSL text of a lowered module.
pub(crate) fn to_wgsl(lowered: &Lowered) -> Result<String, BackendError> {
    let info = validate_module(&lowered.module)?;
    naga::back::wgsl::write_string(&lowered.module, &info, naga::back::wgsl::WriterFlags::empty())
        .map_err(|e| {
            BackendError::compile(format!(
                "naga could not write WGSL: {e}. Fix: this is a vyre lowering bug; report it with the program text."
            ))
        })
}
