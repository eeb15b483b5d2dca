//! Programs shaped as DataFusion scalar functions ([`GenConfig::udf_shape`]), for the fuzzer's
//! DataFusion mode: each generated program runs as a `vyre_datafusion::VyreUdf` over a table of
//! its inputs, and its result column is compared with the reference's output buffer.
//!
//! `VyreUdf` takes a program whose invocation `gid.x = i` reads row `i` of each `read` buffer (one
//! per argument column) and writes row `i` of its one `output` buffer, indexing every storage
//! buffer with exactly `gid.x` (`vyre_foundation::elementwise`). It runs the program over a
//! power-of-two capacity of rows with every `read` and `output` buffer resized to it, rows past the
//! batch computing on whatever the buffers hold. So a program compares with the reference's run of
//! it only where nothing but the row's own elements can reach the row's result:
//!
//! - **The grid is the rows.** One-dimensional workgroups and grid ([`Feature::Elementwise`]'s
//!   shape), `tid = gid.x`, and every `read` and `output` buffer holds exactly one element per
//!   invocation (none shorter or longer than the grid, as elementwise shapes otherwise draw), each
//!   `read` buffer's input one element per row. A workgroup then holds only rows of the batch or
//!   only rows past it, so workgroup memory (which an elementwise program may read at any index
//!   after a barrier) never carries a value from a row past the batch into one of it.
//! - **Buffers.** `out0` is the result; every other buffer is a `read` buffer (an argument) or,
//!   with [`Feature::Workgroup`], a workgroup buffer. No `read_write`, `uniform` or contended
//!   buffer, and no second output. A program with no argument gets one (a function of no argument
//!   is a constant to DataFusion's planner, evaluated once for a one-row batch).
//! - **Indices.** Every access to a storage buffer is at `tid`: loads of arguments (which
//!   elementwise shapes otherwise index anywhere half the time), stores and atomics on `out0`. So
//!   [`Feature::WildIndices`] and [`Feature::RowLoads`] are off, and so are
//!   [`Feature::Subgroups`] (a subgroup operation reads other rows).
//! - **Nothing sees the launch's size.** `VyreUdf` resizes the buffers and the grid, so
//!   `num_workgroups` is drawn as `workgroup_id` and `buf_len` of a storage buffer as its declared
//!   count (a literal); `buf_len` of a workgroup buffer stays. A store guarded by
//!   `tid < buf_len(out0)` stays too: every row of the batch passes it at either length.
//!
//! Workgroup memory, barriers, atomics on `out0` and on workgroup buffers, `return` and every
//! expression form stay on, unlike in [`Feature::Elementwise`]'s own shapes (which keep to what the
//! wgpu lowering vectorises). Everything here is read only when `udf_shape` is on, so every other
//! configuration decodes each recipe exactly as before.

use vyre_foundation::ir::{BufferAccess, BufferDecl, Builtin, DataType, Expr};

use crate::r#gen::decode::Ctx;
use crate::r#gen::layout::{self, BufInfo, Shape};
use crate::r#gen::{Feature, Features, GenConfig};

/// The features of a UDF-shaped case drawn with `features`: the elementwise shape on, and off what
/// would index a storage buffer elsewhere than at `tid` or read another row's value.
pub(crate) fn case_features(features: Features) -> Features {
    features
        .with(Feature::Elementwise)
        .without(Feature::Subgroups)
        .without(Feature::WildIndices)
        .without(Feature::RowLoads)
}

/// The buffers of a UDF-shaped case: `out0` and, per word, an argument (or a workgroup buffer),
/// each storage buffer of exactly one element per invocation; at least one argument.
pub(crate) fn decode_buffers(
    words: &[u32],
    shape: &Shape,
    features: Features,
    config: &GenConfig,
) -> Vec<BufInfo> {
    let rows = shape.invocations();
    let mut out = layout::own_storage("out0", BufferAccess::Output, shape.out_type, shape, 0);
    out.decl.count = rows;
    let mut buffers = vec![out];
    let types = layout::types(features);
    for (i, &word) in words.iter().enumerate() {
        let info = if word % 6 == 5 && features.has(Feature::Workgroup) {
            layout::decode_buffer(i + 1, word, shape, features, config)
        } else {
            let element = types[(word >> 3) as usize % types.len()];
            argument(i + 1, element, rows, (word >> 5) & 1 == 1)
        };
        buffers.push(info);
    }
    if !buffers.iter().any(|b| b.decl.access == BufferAccess::Read) {
        buffers.push(argument(buffers.len(), DataType::U32, rows, false));
    }
    layout::number_bindings(&mut buffers);
    buffers
}

/// Argument `in{i}`: a `read` buffer of `rows` elements (declared, or runtime-sized when
/// `runtime`), its input one element per row.
fn argument(i: usize, element: DataType, rows: u32, runtime: bool) -> BufInfo {
    let count = if runtime { 0 } else { rows };
    let decl = BufferDecl::read(format!("in{i}"), 0, element).with_count(count);
    layout::read_only(decl, rows)
}

impl Ctx {
    /// `buf_len` of `info` as a leaf: itself, except in UDF shapes for a storage buffer, whose
    /// length the function's launch changes: there its declared count.
    pub(crate) fn length_leaf(&self, info: &BufInfo) -> Expr {
        let bound = info.decl.access != BufferAccess::Workgroup;
        if self.config.udf_shape && bound {
            Expr::u32(info.decl.count.max(info.input_elements))
        } else {
            Expr::buf_len(info.decl.name.as_str())
        }
    }

    /// `builtin` as a leaf: itself, except in UDF shapes `num_workgroups`, which the function's
    /// launch changes: there `workgroup_id` of the same axis.
    pub(crate) fn launch_builtin(&self, builtin: Builtin) -> Builtin {
        if let Builtin::NumWorkgroups(axis) = builtin
            && self.config.udf_shape
        {
            Builtin::WorkgroupId(axis)
        } else {
            builtin
        }
    }

    /// True when an access to `info` must be at `tid`: a storage buffer of a UDF shape.
    pub(crate) fn at_tid_only(&self, info: &BufInfo) -> bool {
        self.config.udf_shape && info.decl.access != BufferAccess::Workgroup
    }
}
