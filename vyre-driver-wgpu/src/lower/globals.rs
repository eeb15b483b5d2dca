//! Module-level declarations: scalar types, one global per program buffer, vyre's internal bindings.

use std::num::NonZeroU32;

use naga::{
    AddressSpace, ArraySize, GlobalVariable, Handle, MemoryDecorations, Module, ResourceBinding,
    Scalar, Span, StorageAccess, Type, TypeInner, VectorSize,
};
use vyre_driver::BackendError;
use vyre_foundation::ir::{BufferAccess, DataType, Features};
use vyre_foundation::validate::Validated;

use super::form::Form;

/// The bind group that holds vyre's own buffers (`params`, `items`); group 0 holds the program's.
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

const INTERNAL_GROUP: u32 = 1;

/// Handles of the types every lowering uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Types {
    pub(crate) u32: Handle<Type>,
    pub(crate) i32: Handle<Type>,
    pub(crate) f32: Handle<Type>,
    pub(crate) bool: Handle<Type>,
    pub(crate) vec3u: Handle<Type>,
    /// The optional types, declared only when the program uses them: a module with an `f16` or
    /// 64-bit type needs the device feature (and WGSL text its `enable f16;`), so programs without
    /// them keep their modules as they were.
    pub(crate) f16: Option<Handle<Type>>,
    pub(crate) u64: Option<Handle<Type>>,
    pub(crate) i64: Option<Handle<Type>>,
}

fn add_type(module: &mut Module, inner: TypeInner) -> Handle<Type> {
    module
        .types
        .insert(Type { name: None, inner }, Span::UNDEFINED)
}

impl Types {
    pub(crate) fn new(module: &mut Module, features: Features) -> Self {
        let f16 = features
            .contains(Features::F16)
            .then(|| add_type(module, TypeInner::Scalar(Scalar::F16)));
        let int64 = features.contains(Features::INT64);
        let u64 = int64.then(|| add_type(module, TypeInner::Scalar(Scalar::U64)));
        let i64 = int64.then(|| add_type(module, TypeInner::Scalar(Scalar::I64)));
        Self {
            f16,
            u64,
            i64,
            u32: add_type(module, TypeInner::Scalar(Scalar::U32)),
            i32: add_type(module, TypeInner::Scalar(Scalar::I32)),
            f32: add_type(module, TypeInner::Scalar(Scalar::F32)),
            bool: add_type(module, TypeInner::Scalar(Scalar::BOOL)),
            vec3u: add_type(
                module,
                TypeInner::Vector {
                    size: VectorSize::Tri,
                    scalar: Scalar::U32,
                },
            ),
        }
    }

    /// The type of a value of `ty`. Validation records every type a program uses in its features,
    /// so the optional types are declared whenever they are asked for; were one missing, the `u32`
    /// stand-in would fail naga's validation (a `Compile` error), never run.
    pub(crate) fn value(&self, ty: DataType) -> Handle<Type> {
        match ty {
            DataType::Bool => self.bool,
            DataType::I32 => self.i32,
            DataType::F32 => self.f32,
            DataType::U32 => self.u32,
            DataType::F16 => self.f16.unwrap_or(self.u32),
            DataType::U64 => self.u64.unwrap_or(self.u32),
            DataType::I64 => self.i64.unwrap_or(self.u32),
        }
    }
}

/// The scalar a buffer element is stored as: bools are `u32` words.
pub(crate) fn storage_scalar(ty: DataType) -> Scalar {
    match ty {
        DataType::I32 => Scalar::I32,
        DataType::F32 => Scalar::F32,
        DataType::F16 => Scalar::F16,
        DataType::U64 => Scalar::U64,
        DataType::I64 => Scalar::I64,
        // Bools are stored as `u32` words (`SEMANTICS.md`).
        DataType::U32 | DataType::Bool => Scalar::U32,
    }
}

/// How one program buffer is declared in the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `array<T>` (or `array<atomic<T>>`) in storage.
    Storage,
    /// `array<vec4<T>, ceil(count / 4)>` in the uniform address space (16-byte stride rule).
    UniformVec4,
    /// `array<vec4<T>>` in storage: a buffer of a vectorised module (see `vector`); element `i` is
    /// lane `i % 4` of row `i / 4`, and the binding holds whole rows.
    StorageVec4,
    /// `array<T, count>` (or of atomics) in workgroup memory.
    Workgroup,
    /// `array<vec4<T>, count / 4>` in workgroup memory: a workgroup buffer read four elements at a
    /// time (see `rows`, "Workgroup rows"); element `i` is lane `i % 4` of row `i / 4`.
    WorkgroupVec4,
}

/// One program buffer as declared.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BufferGlobal {
    pub(crate) global: Handle<GlobalVariable>,
    pub(crate) layout: Layout,
}

/// The most bytes one fixed-size array type may span (naga's `MAX_TYPE_SIZE`, 2^31 - 1). naga's
/// validator rejects a larger type as if the lowering were broken (`Compile`), so the lowering
/// reports it first as the limit it is.
const MAX_ARRAY_BYTES: u64 = naga::valid::MAX_TYPE_SIZE as u64;

/// The bytes of the fixed-size array `layout` declares for `count` elements; `None` for runtime-sized
/// storage arrays.
fn fixed_array_bytes(layout: Layout, count: u32, element: DataType) -> Option<u64> {
    // Both products are below 2^36: a u32 count (or a quarter of one) times a stride of 16 or less.
    match layout {
        Layout::Storage | Layout::StorageVec4 => None,
        Layout::Workgroup | Layout::WorkgroupVec4 => {
            Some(u64::from(count) * element.size_bytes() as u64)
        }
        Layout::UniformVec4 => Some(u64::from(count.div_ceil(4)) * 16),
    }
}

fn array_too_large(name: &str, layout: Layout, bytes: u64) -> BackendError {
    let space = match layout {
        Layout::Workgroup | Layout::WorkgroupVec4 => "workgroup",
        Layout::Storage | Layout::StorageVec4 | Layout::UniformVec4 => "uniform",
    };
    BackendError::limit_exceeded(format!(
        "{space} buffer `{name}` spans {bytes} bytes in the shader, more than the {MAX_ARRAY_BYTES} one array may declare. Fix: declare a smaller count, or split the data over several buffers."
    ))
}

/// The globals and bindings [`declare_buffers`] made, and the bytes of workgroup memory declared.
pub(crate) type Declared = (Vec<BufferGlobal>, Vec<LoweredBinding>, u64);

/// Declares a global for every program buffer and returns them with the bindings the runtime binds.
///
/// # Errors
///
/// [`BackendError::LimitExceeded`] when a fixed-size array spans more than [`MAX_ARRAY_BYTES`], or
/// the workgroup buffers together more than a `u64` counts.
pub(crate) fn declare_buffers(
    module: &mut Module,
    evidence: &Validated<'_>,
    form: &Form,
    vectorised: &[bool],
) -> Result<Declared, BackendError> {
    let program = evidence.program();
    let uses = evidence.buffer_uses();
    let mut globals = Vec::with_capacity(program.buffers.len());
    let mut bindings = Vec::new();
    let mut workgroup_bytes = 0u64;
    for (i, decl) in program.buffers.iter().enumerate() {
        let scalar = storage_scalar(decl.element);
        let element = if uses.get(i).is_some_and(|u| u.atomic) {
            add_type(module, TypeInner::Atomic(scalar))
        } else {
            add_type(module, TypeInner::Scalar(scalar))
        };
        let (layout, space, kind) = match decl.access {
            BufferAccess::Workgroup => (Layout::Workgroup, AddressSpace::WorkGroup, None),
            BufferAccess::Uniform if !form.coalesced() => (
                Layout::UniformVec4,
                AddressSpace::Uniform,
                Some(BindingKind::Uniform),
            ),
            BufferAccess::Read | BufferAccess::Uniform => (
                Layout::Storage,
                AddressSpace::Storage {
                    access: StorageAccess::LOAD,
                },
                Some(BindingKind::StorageReadOnly),
            ),
            BufferAccess::ReadWrite | BufferAccess::Output => (
                Layout::Storage,
                AddressSpace::Storage {
                    access: StorageAccess::LOAD | StorageAccess::STORE,
                },
                Some(BindingKind::StorageReadWrite),
            ),
        };
        if let Some(bytes) = fixed_array_bytes(layout, decl.count, decl.element) {
            if bytes > MAX_ARRAY_BYTES {
                return Err(array_too_large(&decl.name, layout, bytes));
            }
            if layout == Layout::Workgroup {
                workgroup_bytes = workgroup_bytes.checked_add(bytes).ok_or_else(|| {
                    BackendError::limit_exceeded(
                        "the program's workgroup buffers together span more bytes than a u64 counts. Fix: shrink the workgroup buffers.",
                    )
                })?;
            }
        }
        let layout = match layout {
            Layout::Storage if vectorised.get(i) == Some(&true) => Layout::StorageVec4,
            // The count is a multiple of 4 (`analysis::rows::workgroup_rows`).
            Layout::Workgroup if vectorised.get(i) == Some(&true) => Layout::WorkgroupVec4,
            other => other,
        };
        let ty = array_type(module, layout, element, decl.element, decl.count);
        let binding = kind.map(|_| ResourceBinding {
            group: 0,
            binding: decl.binding,
        });
        let global = module.global_variables.append(
            GlobalVariable {
                name: Some(decl.name.clone()),
                space,
                binding,
                ty,
                init: None,
                memory_decorations: MemoryDecorations::default(),
            },
            Span::UNDEFINED,
        );
        if let Some(kind) = kind {
            bindings.push(LoweredBinding {
                element_bytes: decl.element.size_bytes() as u64,
                buffer_index: i,
                binding: decl.binding,
                kind,
                rows: layout == Layout::StorageVec4,
            });
        }
        globals.push(BufferGlobal { global, layout });
    }
    Ok((globals, bindings, workgroup_bytes))
}

fn array_type(
    module: &mut Module,
    layout: Layout,
    element: Handle<Type>,
    ty: DataType,
    count: u32,
) -> Handle<Type> {
    let scalar = storage_scalar(ty);
    // Elements are 2, 4 or 8 bytes: `size_bytes` is the natural stride of each.
    let stride = ty.size_bytes() as u32;
    let (base, size, stride) = match layout {
        Layout::Storage => (element, ArraySize::Dynamic, stride),
        // Rows of four elements: 16 bytes of 32-bit elements, 8 of `f16` (`analysis::rows`).
        Layout::StorageVec4 => (vec4_type(module, scalar), ArraySize::Dynamic, 4 * stride),
        Layout::Workgroup => (element, ArraySize::Constant(non_zero(count)), stride),
        Layout::WorkgroupVec4 => (
            vec4_type(module, scalar),
            ArraySize::Constant(non_zero(count / 4)),
            4 * stride,
        ),
        Layout::UniformVec4 => (
            vec4_type(module, scalar),
            ArraySize::Constant(non_zero(count.div_ceil(4))),
            16,
        ),
    };
    add_type(module, TypeInner::Array { base, size, stride })
}

/// The type `vec4<scalar>`: one row of a vectorised or uniform buffer.
pub(crate) fn vec4_type(module: &mut Module, scalar: Scalar) -> Handle<Type> {
    add_type(
        module,
        TypeInner::Vector {
            size: VectorSize::Quad,
            scalar,
        },
    )
}

fn non_zero(n: u32) -> NonZeroU32 {
    // Validation guarantees uniform and workgroup buffers have a count; 1 keeps this total anyway.
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

/// Declares vyre's internal read-only `array<u32>` at `@group(1) @binding(binding)`.
pub(crate) fn declare_internal(
    module: &mut Module,
    types: &Types,
    name: &str,
    binding: u32,
) -> Handle<GlobalVariable> {
    let ty = add_type(
        module,
        TypeInner::Array {
            base: types.u32,
            size: ArraySize::Dynamic,
            stride: 4,
        },
    );
    module.global_variables.append(
        GlobalVariable {
            name: Some(name.to_owned()),
            space: AddressSpace::Storage {
                access: StorageAccess::LOAD,
            },
            binding: Some(ResourceBinding {
                group: INTERNAL_GROUP,
                binding,
            }),
            ty,
            init: None,
            memory_decorations: MemoryDecorations::default(),
        },
        Span::UNDEFINED,
    )
}

/// Declares `vyre_tile_stage_<element>`, the workgroup array an unaligned tile transfer of
/// `element` goes through (`tile`, "Alignment"), and returns it with its bytes.
pub(crate) fn declare_tile_stage(
    module: &mut Module,
    element: DataType,
) -> (Handle<GlobalVariable>, u64) {
    let scalar = add_type(module, TypeInner::Scalar(storage_scalar(element)));
    let stride = element.size_bytes() as u32;
    let elements = super::analysis::tiles::STAGE_ELEMENTS;
    let ty = add_type(
        module,
        TypeInner::Array {
            base: scalar,
            size: ArraySize::Constant(non_zero(elements)),
            stride,
        },
    );
    let global = module.global_variables.append(
        GlobalVariable {
            name: Some(format!("vyre_tile_stage_{element}")),
            space: AddressSpace::WorkGroup,
            binding: None,
            ty,
            init: None,
            memory_decorations: MemoryDecorations::default(),
        },
        Span::UNDEFINED,
    );
    (global, u64::from(elements * stride))
}
