//! The subgroup reduction: vyre's `subgroup_add` sum against raw wgpu's hand-written `subgroupAdd`
//! kernel and against vyre's own tree reduction, in the same run.

use crate::gpu::BenchResult;
use crate::report::Goal;
use crate::workloads;

use super::{RowBase, Suite};

impl Suite<'_> {
    /// One case per reduction size: two rows against the raw subgroup kernel (device time and end
    /// to end), and two against vyre's tree reduction over the same data. A device without
    /// subgroups (or a vyre backend without them) skips the workload with a note.
    pub(super) fn subgroup_reduction(&mut self) -> BenchResult<()> {
        let vyre_has = self.vyre.is_none_or(|b| b.capabilities().subgroups);
        if !self.gpu.subgroups || !vyre_has {
            self.notes.push(
                "subgroup_reduction skipped: the device does not offer subgroups (wgpu's Features::SUBGROUP)"
                    .into(),
            );
            return Ok(());
        }
        let counts = workloads::reduction_counts(self.cap());
        if counts.is_empty() {
            self.notes.push(
                "subgroup_reduction skipped: 2^24 u32 (64 MiB) passes --max-bytes or the device limit"
                    .into(),
            );
        }
        let subgroup_wgsl = crate::wgsl::subgroup_reduction_wgsl();
        let tree_wgsl = crate::wgsl::reduction_wgsl();
        for n in counts {
            let (raw, vyre) = self.reduction_case_with(
                n,
                ("raw subgroup reduction", &subgroup_wgsl),
                (
                    "subgroup_reduction",
                    workloads::subgroup_reduction_program(),
                ),
            )?;
            let (_, tree) = self.reduction_case_with(
                n,
                ("raw reduction", &tree_wgsl),
                (
                    "reduction",
                    workloads::reduction_program(workloads::Trip::Four),
                ),
            )?;
            let case = format!("sum 2^{} u32", n.trailing_zeros());
            let against_raw = RowBase {
                workload: "subgroup_reduction",
                case: case.clone(),
                baseline_name: "raw subgroupAdd",
            };
            self.elementwise_rows(
                &against_raw,
                n * 4,
                (vyre.as_ref(), &raw),
                &[Goal::RatioAtLeast(0.9)],
            );
            if let Some(tree) = tree {
                let against_tree = RowBase {
                    workload: "subgroup_reduction",
                    case,
                    baseline_name: "vyre tree",
                };
                self.elementwise_rows(&against_tree, n * 4, (vyre.as_ref(), &tree), &[]);
            }
        }
        Ok(())
    }
}
