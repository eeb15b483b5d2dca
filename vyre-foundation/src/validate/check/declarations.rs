//! The declarations: workgroup size and buffers (names, bindings, counts, readback ranges).

use crate::ir::{BufferAccess, BufferDecl};
use crate::validate::errors::ValidationErrorKind as K;

use super::{Checker, is_identifier};

impl Checker<'_> {
    pub(super) fn check_declarations(&mut self) {
        let program = self.program;
        let [x, y, z] = program.workgroup_size;
        if x == 0 || y == 0 || z == 0 {
            self.error_at(
                "workgroup_size".into(),
                K::WorkgroupSizeZero { size: [x, y, z] },
            );
        } else {
            match program.invocations_per_workgroup() {
                Some(n) if n <= u64::from(crate::ir::MAX_WORKGROUP_INVOCATIONS) => {}
                Some(invocations) => {
                    self.error_at(
                        "workgroup_size".into(),
                        K::WorkgroupTooLarge { invocations },
                    );
                }
                None => self.error_at(
                    "workgroup_size".into(),
                    K::WorkgroupInvocationsOverflow { size: [x, y, z] },
                ),
            }
        }
        for (i, buffer) in program.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            self.check_declaration(path, i, buffer);
        }
    }

    pub(super) fn check_declaration(&mut self, path: String, i: usize, buffer: &BufferDecl) {
        let earlier = &self.program.buffers[..i];
        self.needs(crate::ir::Features::of_type(buffer.element));
        if !is_identifier(&buffer.name) {
            self.error_at(
                path.clone(),
                K::InvalidName {
                    name: buffer.name.clone(),
                },
            );
        }
        if earlier.iter().any(|b| b.name == buffer.name) {
            self.error_at(
                path.clone(),
                K::DuplicateBufferName {
                    name: buffer.name.clone(),
                },
            );
        }
        if buffer.access.is_bound() {
            let twin = earlier
                .iter()
                .find(|b| b.access.is_bound() && b.binding == buffer.binding);
            if let Some(first) = twin {
                let kind = K::DuplicateBinding {
                    binding: buffer.binding,
                    first: first.name.clone(),
                    second: buffer.name.clone(),
                };
                self.error_at(path.clone(), kind);
            }
        }
        let needs_count = matches!(
            buffer.access,
            BufferAccess::Output | BufferAccess::Uniform | BufferAccess::Workgroup
        );
        if needs_count && buffer.count == 0 {
            let kind = K::MissingCount {
                buffer: buffer.name.clone(),
                access: buffer.access,
            };
            self.error_at(path.clone(), kind);
        }
        if buffer.access == BufferAccess::Uniform && buffer.element.size_bytes() != 4 {
            let kind = K::UniformElementType {
                buffer: buffer.name.clone(),
                element: buffer.element,
            };
            self.error_at(path.clone(), kind);
        }
        if let Some(range) = &buffer.output_byte_range {
            if buffer.access != BufferAccess::Output {
                self.error_at(
                    path,
                    K::ReadbackRangeOnNonOutput {
                        buffer: buffer.name.clone(),
                    },
                );
            } else if let Some(bytes) = buffer.declared_bytes()
                && (range.start > range.end
                    || !u64::try_from(range.end).is_ok_and(|end| end <= bytes))
            {
                let kind = K::ReadbackRangeOutOfBounds {
                    buffer: buffer.name.clone(),
                    range: range.clone(),
                    buffer_bytes: bytes,
                };
                self.error_at(path, kind);
            }
        }
    }
}
