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
pub(crate) mod analysis;
mod array;
mod expr;
mod form;
mod func;
mod globals;
mod node;
mod params;
mod planted;
mod prologue;
mod rows;
mod soft_division;
mod subgroup;
mod tile;
mod vector;
mod workaround;

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};
use naga::{
    Binding, BuiltIn, EntryPoint, Expression, Function, FunctionArgument, Handle, ShaderStage,
};
use vyre_driver::BackendError;
use vyre_foundation::elementwise::GidAliases;
use vyre_foundation::ir::{DataType, Expr, Features, Program};
use vyre_foundation::validate::{Validated, VarId};

use analysis::barrier::BarrierScopes;
use analysis::bounds::Bounds;
use analysis::rows::{Aligned, RowFacts, WorkgroupRows};
use analysis::tiles::TileFacts;
use func::FunctionBuilder;
use globals::{BufferGlobal, Types};
use prologue::Prologue;

use crate::workarounds::Workarounds;

pub(crate) use analysis::ProgramFacts;
pub(crate) use analysis::coverage::covers;
pub(crate) use analysis::vector::{VectorPlan, WIDTH as VECTOR_WIDTH};
pub(crate) use form::{Form, Grid, Lanes};
pub(crate) use globals::{BindingKind, LoweredBinding};
pub(crate) use params::{ITEM_ROW_WORDS, plan_params, split_params};
pub use planted::Miscompile;
#[cfg(feature = "planted-miscompiles")]
pub use planted::plant_miscompile;
pub(crate) use planted::{any_planted, planted};

/// The version of what the lowering emits, part of the disk pipeline cache's key (`disk`): bump it
/// whenever a change to the lowering changes the code emitted for some program, so that caches
/// written by an older lowering are not trusted by a newer one.
pub(crate) const LOWERING_VERSION: u32 = 9;

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

/// Everything the translation of one program needs.
pub(crate) struct Lowerer<'v, 'p> {
    /// The program and what validation proved about it: every name is resolved from here.
    pub(crate) evidence: &'v Validated<'p>,
    pub(crate) program: &'p Program,
    pub(crate) module: &'v mut naga::Module,
    pub(crate) types: Types,
    pub(crate) fb: FunctionBuilder,
    pub(crate) globals: Vec<BufferGlobal>,
    pub(crate) prologue: Prologue,
    /// Each program variable, by [`vyre_foundation::validate::VarId`], once its declaration is
    /// lowered: a naga local, or the value itself for a `let` never assigned.
    pub(crate) locals: Vec<Option<Local>>,
    /// The memory scope of each barrier (see `barrier`), by ordinal, and how many the lowering
    /// has met so far.
    pub(crate) barriers: BarrierScopes,
    pub(crate) barrier_count: usize,
    /// The proofs that let an access go unguarded (see `bounds`).
    pub(crate) bounds: Bounds,
    /// While a vectorised module's full-row path lowers one lane: that lane and the rows.
    pub(crate) lanes: Option<FullRow>,
    /// The row buffers of a plain module and the rows read in the current statement (see `rows`).
    pub(crate) row_loads: RowLoads,
    /// The subgroup builtins, present when the program uses subgroup operations.
    pub(crate) subgroup: Option<SubgroupIds>,
    /// The driver workarounds in force (see `workaround`).
    pub(crate) workarounds: Workarounds,
    /// What the tile lowering knows of the program's transfers, when it has tiles (see `tile`).
    pub(crate) tile_facts: Option<TileFacts>,
    /// The workgroup stage of each element unaligned tile transfers go through (see `tile`).
    pub(crate) tile_stages: Vec<(DataType, Handle<naga::GlobalVariable>)>,
}

/// A lowered value and its IR type.
pub(crate) type Value = (Handle<Expression>, DataType);

/// How a program variable is held in the module.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Local {
    /// A function-local variable (a pointer expression): variables that are assigned, and loop
    /// counters.
    Pointer(Handle<Expression>),
    /// The value of a `let` that is never assigned, evaluated once where the `let` stands: an SSA
    /// value, so the module needs no local, store or load for it. Every use is inside the `let`'s
    /// scope, which the `let`'s block dominates, and naga evaluates an expression (a buffer load
    /// included) where it is emitted, so every use sees the value the `let` took.
    Value(Handle<Expression>),
}

impl Lowerer<'_, '_> {
    /// How the variable `id` is held, declared earlier in the lowering.
    pub(crate) fn local(&self, id: VarId) -> Result<Local, BackendError> {
        self.locals
            .get(id.index())
            .copied()
            .flatten()
            .ok_or_else(|| {
                BackendError::compile(
                    "the wgpu lowering reached a variable before its declaration. Fix: this is a vyre lowering bug; report it with the program text (Display).",
                )
            })
    }

    /// The naga local of the assigned variable `id`.
    pub(crate) fn local_pointer(&self, id: VarId) -> Result<Handle<Expression>, BackendError> {
        match self.local(id)? {
            Local::Pointer(pointer) => Ok(pointer),
            Local::Value(_) => Err(BackendError::compile(
                "the wgpu lowering met an assignment to a variable it held as a value. Fix: this is a vyre lowering bug; report it with the program text (Display).",
            )),
        }
    }

    /// Records how the variable `id` is held.
    pub(crate) fn bind(&mut self, id: VarId, local: Local) {
        let i = id.index();
        if self.locals.len() <= i {
            self.locals.resize(i + 1, None);
        }
        self.locals[i] = Some(local);
    }
}

/// The lane the full-row path is lowering, and each vectorised buffer's row.
#[derive(Clone, Debug)]
pub(crate) struct FullRow {
    pub(crate) lane: u32,
    pub(crate) rows: Vec<Option<Row>>,
    pub(crate) aliases: GidAliases,
}

/// One vectorised buffer's row in the full-row path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Row {
    /// Only loaded: the row's value.
    Value(Handle<Expression>),
    /// Stored (and maybe loaded): a local `vec4`, and per lane a `stored` flag when stores are
    /// conditional.
    Local {
        local: Handle<Expression>,
        flags: Option<[Handle<Expression>; 4]>,
    },
}

/// One row read in the current statement: the buffer, its base expression, the base as `u32`
/// and the row's value.
#[derive(Clone, Debug)]
pub(crate) struct CachedRow {
    pub(crate) buffer: usize,
    pub(crate) base: RowKey,
    pub(crate) base_u32: Handle<Expression>,
    pub(crate) row: Handle<Expression>,
}

/// What a cached row was read at: the aligned base, an expression or an aligned variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RowKey {
    /// An expression plus a literal multiple of 4.
    Expr(Expr, u32),
    /// An aligned variable plus a literal multiple of 4.
    Var(VarId, u32),
}

/// The lowering's view of the row buffers of a module.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowLoads {
    /// Per program buffer: a read-only storage buffer declared as rows.
    pub(crate) rows: Vec<bool>,
    /// Per program buffer: a workgroup buffer declared as rows.
    pub(crate) workgroup: Vec<bool>,
    pub(crate) aligned: Aligned,
    /// The rows read so far in the current statement.
    pub(crate) cache: Vec<CachedRow>,
}

/// The subgroup size (the entry point's argument 3) and the invocation's lane.
#[derive(Clone, Copy)]
pub(crate) struct SubgroupIds {
    pub(crate) size: Handle<Expression>,
    pub(crate) lane: Handle<Expression>,
}

/// Lowers a validated program: every name comes resolved from its evidence, and every analysis from
/// `facts` (computed once from the same evidence, see [`ProgramFacts`]).
pub(crate) fn lower(
    evidence: &Validated<'_>,
    facts: &ProgramFacts,
    form: &Form,
    workarounds: Workarounds,
) -> Result<Lowered, BackendError> {
    let program = evidence.program();
    if form.coalesced()
        && let Some(wide) = program.buffers.iter().find(|b| !b.element.is_word())
    {
        return Err(BackendError::unsupported(format!(
            "buffer `{}` has {} elements; coalesced launches (`dispatch_coalesced`, `run_persistent_kernel`) lay items out in 32-bit words only. Fix: dispatch programs with f16, u64 or i64 buffers one at a time (`dispatch`).",
            wide.name, wide.element
        )));
    }
    let mut module = naga::Module::default();
    let types = globals::Types::new(&mut module, evidence.features());
    let vector = if form.vectorised() {
        Some(facts.vector.as_ref().ok_or_else(|| {
            BackendError::compile(
                "a vectorised module was asked for a program that does not qualify. Fix: this is a vyre bug; report it with the program text (Display).",
            )
        })?)
    } else {
        None
    };
    let rows = if form.rows() {
        Some(facts.rows.as_ref().ok_or_else(|| {
            BackendError::compile(
                "row loads were asked for a program with no row buffer. Fix: this is a vyre bug; report it with the program text (Display).",
            )
        })?)
    } else {
        None
    };
    let row_buffers: &[bool] = rows.map_or(&[], |r| r.buffers.as_slice());
    // Row buffers are never vectorised buffers: those are accessed at `gid.x` alone, which is not
    // a multiple of 4 (`rows`).
    // Workgroup rows are workgroup buffers, never either of those.
    let workgroup_rows = facts.workgroup_rows.as_ref();
    let vectorised: Vec<bool> = (0..program.buffers.len())
        .map(|j| {
            vector.as_ref().is_some_and(|p| p.vectorised[j])
                || row_buffers.get(j).copied().unwrap_or(false)
                || workgroup_rows.is_some_and(|w| w.buffers[j])
        })
        .collect();
    let (buffers, bindings, mut workgroup_bytes) =
        globals::declare_buffers(&mut module, evidence, form, &vectorised)?;
    let stages = facts
        .tiles
        .as_ref()
        .map_or_else(Vec::new, |tiles| tiles.stages(form.coalesced()));
    let mut tile_stages = Vec::with_capacity(stages.len());
    for element in stages {
        let (global, bytes) = globals::declare_tile_stage(&mut module, element);
        workgroup_bytes = workgroup_bytes.saturating_add(bytes);
        tile_stages.push((element, global));
    }
    let params = globals::declare_internal(&mut module, &types, "vyre_params", 0);
    let items = form
        .items_table()
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
        rows,
        workgroup_rows,
        workarounds,
        opaque_zero: facts.patterns.need_opaque_zero(workarounds),
        tile_stages,
    };
    for &(name, part) in parts {
        let entry = entry_point(
            evidence,
            facts,
            form,
            &mut module,
            &globals,
            vector,
            name,
            part,
        )?;
        module.entry_points.push(entry);
    }
    let info = analyse_module(&module)?;
    drop_unused_names(&mut module, &info);
    // A module that reads nothing of `params` (a direct one whose lengths are all declared) is
    // launched without vyre's bind group: compacting drops the unused global, and the pipeline
    // then has group 0 alone. (Compacting keeps a valid module valid; `to_wgsl` validates what it
    // writes again, and wgpu validates what it compiles.)
    let uses_params = items.is_some()
        || (0..module.entry_points.len()).any(|i| !info.get_entry_point(i)[params].is_empty());
    if !uses_params {
        naga::compact::compact(&mut module, naga::compact::KeepUnused::No);
    } else if form.packed() {
        // The packed prologue computes the item, `gid.x` and the local ids for every program;
        // an elementwise one indexed at `p` (see `analysis::packed`) uses none of them, and the
        // driver's compiler need not see them.
        naga::compact::compact(&mut module, naga::compact::KeepUnused::Yes);
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
struct Globals<'f> {
    buffers: Vec<globals::BufferGlobal>,
    params: naga::Handle<naga::GlobalVariable>,
    items: Option<naga::Handle<naga::GlobalVariable>>,
    types: globals::Types,
    /// The row buffers, when the module declares them as rows.
    rows: Option<&'f RowFacts>,
    /// The workgroup buffers declared as rows, when there are any.
    workgroup_rows: Option<&'f WorkgroupRows>,
    /// The driver workarounds in force, and whether they need the opaque zero.
    workarounds: Workarounds,
    opaque_zero: bool,
    /// The workgroup stages of unaligned tile transfers, by element.
    tile_stages: Vec<(DataType, naga::Handle<naga::GlobalVariable>)>,
}

/// The entry point `name`, running `part` of the program.
#[allow(clippy::too_many_arguments)]
fn entry_point(
    evidence: &Validated<'_>,
    facts: &ProgramFacts,
    form: &Form,
    module: &mut naga::Module,
    shared: &Globals<'_>,
    vector: Option<&VectorPlan>,
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
    if subgroups && (form.vectorised() || form.packed()) {
        return Err(BackendError::compile(
            "a vectorised or packed module was asked for a program with subgroup operations. Fix: this is a vyre bug; report it with the program text (Display).",
        ));
    }
    // Staged tile transfers share their stage among the subgroups in turn (see `tile`).
    let subgroup_ids = subgroups || !shared.tile_stages.is_empty();
    if subgroup_ids {
        // Only the size: the lane is computed from the local index (see `subgroup`), as naga
        // allows `subgroup_invocation_id` in one-dimensional workgroups only.
        function.arguments.push(FunctionArgument {
            name: Some("vyre_subgroup_size".to_owned()),
            ty: types.u32,
            binding: Some(Binding::BuiltIn(BuiltIn::SubgroupSize)),
        });
    }
    if evidence.features().contains(Features::TILES) {
        // Tile statements run in uniform control flow by the validator's proof, which naga's
        // analysis cannot follow through function-local variables (see `tile`).
        let filter = naga::diagnostic_filter::DiagnosticFilterNode {
            inner: naga::diagnostic_filter::DiagnosticFilter {
                new_severity: naga::diagnostic_filter::Severity::Off,
                triggering_rule: naga::diagnostic_filter::FilterableTriggeringRule::Standard(
                    naga::diagnostic_filter::StandardFilterableTriggeringRule::DerivativeUniformity,
                ),
            },
            parent: None,
        };
        function.diagnostic_filter_leaf = Some(
            module
                .diagnostic_filters
                .append(filter, naga::Span::UNDEFINED),
        );
    }
    let mut fb = func::FunctionBuilder::new(function);
    let mut body = naga::Block::new();
    let inputs = prologue::PrologueInputs {
        program,
        form,
        params: shared.params,
        items: shared.items,
        opaque_zero: shared.opaque_zero,
        packed_active: facts.packed_active.filter(|_| form.packed()),
    };
    let prologue = prologue::emit(&mut fb, &mut body, &inputs);
    let subgroup_size =
        subgroup_ids.then(|| fb.expr(&mut body, naga::Expression::FunctionArgument(3)));
    // Outside coalesced modules every buffer has at least one element in every dispatch: fixed
    // counts are at least 1, and `plan_dispatch` rejects an empty runtime-sized input.
    let mut bounds = Bounds::new(
        prologue.fixed.clone(),
        !form.coalesced(),
        program.workgroup_size,
    );
    if form.packed()
        && let Some(n) = facts
            .packed_stores
            .as_deref()
            .and_then(|stored| analysis::bounds::packed_gid_bound(program, stored))
    {
        bounds.assume_gid_x_below(n);
    }
    let mut lowerer = Lowerer {
        evidence,
        program,
        module,
        types,
        fb,
        globals: shared.buffers.clone(),
        prologue,
        locals: vec![None; evidence.vars().len()],
        barriers: facts.barriers.clone(),
        barrier_count: 0,
        bounds,
        lanes: None,
        row_loads: RowLoads::new(shared.rows, shared.workgroup_rows),
        subgroup: None,
        workarounds: shared.workarounds,
        tile_facts: facts.tiles.clone(),
        tile_stages: shared.tile_stages.clone(),
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
    .union(Capabilities::COOPERATIVE_MATRIX)
    .union(Capabilities::SHADER_FLOAT16)
    .union(Capabilities::SHADER_INT64)
    .union(Capabilities::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(Capabilities::SHADER_INT64_ATOMIC_ALL_OPS);

/// Checks a module with naga's validator (uniformity excepted, see the module docs).
pub(crate) fn validate_module(module: &naga::Module) -> Result<ModuleInfo, BackendError> {
    run_validator(
        module,
        ValidationFlags::all() - ValidationFlags::CONTROL_FLOW_UNIFORMITY,
    )
}

/// What naga's analysis knows of a module (expression uses, the globals each entry point
/// reads), without its rules checked: what [`lower`] needs to trim the module. Every path that
/// hands the module on checks it in full: wgpu validates each module it compiles with every
/// flag (`wgpu-core`'s `create_shader_module`; a refusal is a compile error naming a vyre
/// lowering bug, `pipeline.rs`), and the `emit_*` functions validate what they write
/// ([`validate_module`]). Checking it here as well cost about 4% of the host side of a cold
/// compile of the 10-op chain (BENCHMARKS.md).
fn analyse_module(module: &naga::Module) -> Result<ModuleInfo, BackendError> {
    run_validator(module, ValidationFlags::empty())
}

/// naga's validator with `flags` over `module`, its error as a vyre lowering bug.
fn run_validator(
    module: &naga::Module,
    flags: ValidationFlags,
) -> Result<ModuleInfo, BackendError> {
    Validator::new(flags, MODULE_CAPABILITIES)
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
    let text = naga::back::wgsl::write_string(
        &lowered.module,
        &info,
        naga::back::wgsl::WriterFlags::empty(),
    )
    .map_err(|e| {
        BackendError::compile(format!(
            "naga could not write WGSL: {e}. Fix: this is a vyre lowering bug; report it with the program text."
        ))
    })?;
    // naga's writer leaves diagnostic filters out; the one vyre sets (tiles, see `tile`) goes in
    // as a directive, so the text compiles as the module does.
    let filtered = lowered
        .module
        .entry_points
        .iter()
        .any(|e| e.function.diagnostic_filter_leaf.is_some());
    Ok(if filtered {
        format!("diagnostic(off, derivative_uniformity);\n{text}")
    } else {
        text
    })
}
